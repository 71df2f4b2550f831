// Builds the installable command line: bin/nodeherd.ts as one ES module of JavaScript,
// dist/bin/nodeherd-bundle.mjs, behind a tiny entry, dist/bin/nodeherd.mjs, that checks the Node
// version before any of the bundle's imports run (on an older Node they fail inside undici with a
// stack trace, even for --help); beside them the kubectl plugin entry (kubectl-nodeherd.mjs) and
// kubectl's completion helper for it (kubectl_complete-nodeherd.mjs). npm
// pack runs it (the `prepack` script), because Node refuses to strip types of .ts files under
// node_modules: a package whose bins are TypeScript works from a clone and nowhere else.
//
//   node src/dist/build-cli.ts [--out-dir dist/bin]
//
// The package's dependencies stay outside the bundle (npm installs them beside it; better-sqlite3 is
// native). The bundle sits two directories below the package root like the sources do (src/up/…), so
// the paths the sources resolve from their own location (deploy/samples, init/) hold in the bundle too.

import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { buildDashboardScript, DASHBOARD_SCRIPT_MODULE } from '../cli/dashboard/build-page-script.ts';
import { REPO_ROOT } from './build-agent.ts';

export const DEFAULT_CLI_OUT_DIR = join(REPO_ROOT, 'dist', 'bin');
/** The oldest Node the built CLI runs on: undici 8 (under @kubernetes/client-node) needs 22.19. */
export const CLI_NODE_MINIMUM = { major: 22, minor: 19 } as const;
export const CLI_NODE_TARGET = `node${CLI_NODE_MINIMUM.major}.${CLI_NODE_MINIMUM.minor}`;

/**
 * The installed `nodeherd`: plain JavaScript with no static import, so it runs on any Node and says in
 * one line what it needs before it loads the bundle.
 */
export function cliEntry(bundleFile: string): string {
  const { major, minor } = CLI_NODE_MINIMUM;
  return [
    '#!/usr/bin/env node',
    '// The nodeherd command: checks the Node version, then loads the bundle (whose imports need it).',
    "const [major, minor] = process.versions.node.split('.').map(Number);",
    `if (major < ${major} || (major === ${major} && minor < ${minor})) {`,
    '  process.stderr.write(',
    `    \`nodeherd: needs Node.js ${major}.${minor} or newer; \${process.execPath} is \${process.version}\\n\`,`,
    '  );',
    '  process.exit(1);',
    '}',
    `await import('./${bundleFile}');`,
    '',
  ].join('\n');
}

export interface CliBuild {
  nodeherd: string;
  kubectlPlugin: string;
  bytes: number;
}

/**
 * The dashboard's page script, bundled for the browser now and put in place of web-assets.ts: the
 * installed CLI has neither its sources nor esbuild.
 */
function prebuiltDashboard(script: string): Plugin {
  return {
    name: 'prebuilt-dashboard',
    setup(b) {
      b.onLoad({ filter: /web-assets\.ts$/ }, (args) =>
        args.path === DASHBOARD_SCRIPT_MODULE
          ? {
              contents: `export const dashboardScript = () => Promise.resolve(${JSON.stringify(script)});`,
              loader: 'js',
            }
          : undefined,
      );
    },
  };
}

export async function buildCli(outDir = DEFAULT_CLI_OUT_DIR): Promise<CliBuild> {
  const out = resolve(outDir);
  await mkdir(out, { recursive: true });
  const nodeherd = join(out, 'nodeherd.mjs');
  const dashboardScript = await buildDashboardScript();
  const result = await build({
    plugins: [prebuiltDashboard(dashboardScript)],
    entryPoints: { 'nodeherd-bundle': join(REPO_ROOT, 'bin/nodeherd.ts') },
    outdir: out,
    outExtension: { '.js': '.mjs' },
    // Each command's modules in chunks of their own, loaded when it runs (cli/main.ts imports them on
    // demand): in one file, every package any command uses is imported before any code runs.
    splitting: true,
    // Beside the entry, not below: sources find deploy/ and init/ from their own depth (see above).
    chunkNames: '[name]-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: CLI_NODE_TARGET,
    // Dependencies are installed by npm beside the package; esbuild is only for `up --nspawn`, which
    // builds the agent and needs a clone anyway.
    packages: 'external',
    // A bundled module's "am I the entry point" guard would be true for the bundle itself.
    define: { 'import.meta.main': 'false' },
    keepNames: true,
    legalComments: 'none',
    sourcemap: false,
    metafile: true,
    logLevel: 'silent',
  });
  const scripts = Object.keys(result.metafile.inputs).filter((input) => /(^|\/)src\/.*generate-/.test(input));
  if (scripts.length > 0)
    throw new Error(`the CLI bundle pulled in generator scripts: ${scripts.join(', ')}`);
  await writeFile(nodeherd, cliEntry('nodeherd-bundle.mjs'), { mode: 0o755 });
  await chmod(nodeherd, 0o755);
  // kubectl finds plugins by file name on PATH; npm links the bin under the name package.json gives it.
  const kubectlPlugin = join(out, 'kubectl-nodeherd.mjs');
  await writeFile(
    kubectlPlugin,
    `#!/usr/bin/env node\n// kubectl plugin entry: \`kubectl nodeherd …\` runs the nodeherd command.\nimport './nodeherd.mjs';\n`,
    { mode: 0o755 },
  );
  // kubectl (1.26+) completes `kubectl nodeherd <TAB>` by running kubectl_complete-nodeherd from PATH.
  const kubectlCompletion = join(out, 'kubectl_complete-nodeherd.mjs');
  await writeFile(
    kubectlCompletion,
    "#!/usr/bin/env node\n// kubectl's plugin completion: `nodeherd __complete <words>`.\nprocess.argv.splice(2, 0, '__complete');\nawait import('./nodeherd.mjs');\n",
    { mode: 0o755 },
  );
  const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
  return { nodeherd, kubectlPlugin, bytes };
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { 'out-dir': { type: 'string' } } });
  buildCli(values['out-dir'])
    .then((built) => {
      const shown = (p: string) => relative(process.cwd(), p) || p;
      process.stdout.write(
        `${shown(built.nodeherd)}  ${(built.bytes / 1e6).toFixed(2)} MB\n${shown(built.kubectlPlugin)}\n`,
      );
    })
    .catch((error: Error) => {
      process.stderr.write(`build-cli: ${error.message}\n`);
      process.exit(1);
    });
}
