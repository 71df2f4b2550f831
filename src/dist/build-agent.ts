// Builds what a node runs: the agent as one esbuild bundle (nodeherd-agent.mjs) and the pinned Node
// runtime it runs on (node.gz, the stripped `node` binary this script itself runs under, gzipped),
// each with a `.sha256` file in sha256sum's format, plus manifest.json describing both.
// docs/real-nodes.md explains why a bundle plus a runtime and not a single-executable application.
//
//   node src/dist/build-agent.ts [--out-dir dist] [--version X] [--no-runtime]
//
// The runtime is ~40 MB compressed and changes only with Node itself: it is rebuilt only when the
// source binary's digest differs from the one recorded beside it, so a rebuild of the agent costs
// about half a second.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Plugin } from 'esbuild';

const execFileAsync = promisify(execFile);
const gzipAsync = promisify(gzip);

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const DEFAULT_OUT_DIR = join(REPO_ROOT, 'dist');
export const AGENT_FILE = 'nodeherd-agent.mjs';
export const RUNTIME_FILE = 'node.gz';
export const MANIFEST_FILE = 'manifest.json';

/**
 * Node's flags for the agent, before the bundle: nodeherd-init.sh's unit runs it with them (its
 * ExecStart, held to this list by test/dist/agent-node-flags.test.ts), so does the agent image's
 * entrypoint, and bench/agent-idle.bench.ts measures with them. Each saves idle RSS (issue 17;
 * docs/real-nodes.md, "The agent's memory"): V8's lite mode (no optimising compiler, which an idle
 * daemon has no use for), a 1 MB young generation, the bytecode of functions not run since the last
 * full GC (what an apply or the start left) dropped until they run again, --use-openssl-ca, with
 * which loading node:tls does not parse Node's ~150 bundled root CAs on a thread of its own (the
 * agent trusts none of them: src/agent/tls-trust.ts), and --single-threaded-gc: V8 collects on the
 * main thread alone, without helper threads marking and sweeping beside it (1.0 MB).
 */
export const AGENT_NODE_FLAGS: readonly string[] = [
  '--lite-mode',
  '--max-semi-space-size=1',
  '--bytecode-old-age=1',
  '--use-openssl-ca',
  '--single-threaded-gc',
];

/**
 * The environment nodeherd-init.sh's unit gives Node itself, beside the agent's own NODEHERD_*
 * settings (held to the unit by the same test); the idle bench runs the agent with it, the compile
 * cache in a directory of its own.
 */
export const AGENT_NODE_ENV: Readonly<Record<string, string>> = {
  NODE_COMPILE_CACHE: '/var/cache/nodeherd/compile-cache',
};

export interface BuildAgentOptions {
  /** Default <repo>/dist. */
  outDir?: string;
  /** Written into the bundle's first line and the manifest; default the package.json version. */
  version?: string;
  /** Default bin/nodeherd-agent.ts. */
  entry?: string;
  /** The node binary to ship (default: the one running this build); false: agent only. */
  runtime?: string | false;
  /** Default true. */
  minify?: boolean;
}

export interface Artefact {
  /** File name in outDir (what the artefact server serves). */
  file: string;
  path: string;
  sha256: string;
  size: number;
}

export interface RuntimeArtefact extends Artefact {
  nodeVersion: string;
  /** Digest and size of the decompressed binary. */
  binarySha256: string;
  binarySize: number;
  stripped: boolean;
}

export interface AgentArtefacts {
  version: string;
  agent: Artefact;
  runtime?: RuntimeArtefact;
  manifestPath: string;
}

export function sha256Hex(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** sha256sum's line format, so `sha256sum -c` can check a download too. */
export function checksumLine(sha256: string, file: string): string {
  return `${sha256}  ${file}\n`;
}

/** The digest in a `.sha256` file (its first word), or undefined when it holds none. */
export function parseChecksumLine(text: string): string | undefined {
  const word = text.trim().split(/\s+/)[0] ?? '';
  return /^[0-9a-f]{64}$/.test(word) ? word : undefined;
}

async function writeAtomically(path: string, content: Buffer | string, mode = 0o644): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, content, { mode });
  await rename(temporary, path);
}

async function packageVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

/**
 * Loads every Node built-in the bundle imports with `process.getBuiltinModule`, never with an ES module
 * `import`: an ESM import of a built-in builds its namespace from every export, which runs the lazy
 * ones (`node:http` loads undici, `node:crypto` WebCrypto: ~6 MB of RSS an idle agent never uses;
 * issue 17, bench/agent-idle.bench.ts).
 *
 * An `import` of a built-in becomes a small ES module that reads each export the bundle uses from the
 * module object, and nothing else: each export is a pure call, so esbuild drops the ones no importer
 * uses. (A CommonJS module in its place would be wrapped in esbuild's `__toESM`, which copies every
 * property with its descriptor, and reading the descriptor of a lazy export loads it: `node:fs`'s
 * `Dir` loaded internal/fs/dir.) The exports are those of the built-in in the Node that builds, the
 * runtime the bundle ships with. A `require` of one (a bundled CommonJS dependency) gets the module
 * object itself.
 */
const builtinsWithoutEsmImport: Plugin = {
  name: 'builtins-without-esm-import',
  setup(build) {
    build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      if (!isBuiltin(args.path) || args.namespace.startsWith('node-builtin')) return undefined;
      const id = args.path.startsWith('node:') ? args.path : `node:${args.path}`;
      return { path: id, namespace: args.kind === 'require-call' ? 'node-builtin-cjs' : 'node-builtin' };
    });
    build.onLoad({ filter: /.*/, namespace: 'node-builtin-cjs' }, (args) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
    build.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({
      contents: builtinModuleShim(args.path),
      loader: 'js',
    }));
  },
};

function builtinModuleShim(id: string): string {
  const exported = process.getBuiltinModule(id) as Record<string, unknown>;
  // The exports are named `<name>$`, the shim's own locals `<name>$$`: they cannot collide.
  const lines = [
    `const builtin$$ = process.getBuiltinModule(${JSON.stringify(id)});`,
    'const read$$ = (name) => builtin$$[name];',
    'export default builtin$$;',
  ];
  for (const name of Object.keys(exported))
    if (/^[A-Za-z_][\w]*$/.test(name) && name !== 'default')
      lines.push(
        `const ${name}$ = /* @__PURE__ */ read$$(${JSON.stringify(name)});`,
        `export { ${name}$ as ${name} };`,
      );
  return lines.join('\n');
}

/** Bundles the agent into one ES module that needs nothing but the Node runtime. */
export async function bundleAgent(options: {
  entry: string;
  outFile: string;
  version: string;
  minify: boolean;
  /** Named in the bundle's first line; default nodeherd-agent (the images bundle the controller too). */
  name?: string;
}): Promise<Artefact> {
  if (!/^[\w.+-]+$/.test(options.version))
    throw new Error(`invalid version ${JSON.stringify(options.version)}`);
  // Loaded here, not at the top: esbuild is a devDependency, and the installed CLI bundles this module
  // (for `up --nspawn`) without it.
  const { build } = await import('esbuild');
  const banner = `// ${options.name ?? 'nodeherd-agent'} ${options.version}`;
  const result = await build({
    entryPoints: [options.entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    // Whitespace and syntax only: identifiers keep their names, so function and class names stay
    // readable in the stack traces a node logs, without keepNames, whose __name call for every
    // function and class costs the agent ~0.4 MB of idle RSS (issue 17; bench/agent-idle.bench.ts).
    minifyWhitespace: options.minify,
    minifySyntax: options.minify,
    legalComments: 'none',
    banner: { js: banner },
    plugins: [builtinsWithoutEsmImport],
    // src/util/build-info.ts: the version the bundle reports, compiled in.
    define: { NODEHERD_BUILD_VERSION: JSON.stringify(options.version) },
    write: false,
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error('esbuild produced no output');
  const content = Buffer.from(withRequireIfUsed(output.text, banner));
  await writeAtomically(options.outFile, content, 0o755);
  return {
    file: AGENT_FILE,
    path: options.outFile,
    sha256: sha256Hex(content),
    size: content.length,
  };
}

/**
 * Gives the bundle a `require` when it uses one (esbuild's `__require`, for a `require` it could not
 * resolve in a bundled CommonJS dependency: the controller's), after the bundle's first line. ESM
 * output has none of its own; the agent's bundle needs none, and without it does not load
 * `node:module` (which loads the source-map support) and `import.meta`'s setup (issue 17).
 */
function withRequireIfUsed(text: string, banner: string): string {
  if (!text.includes('__require')) return text;
  const at = text.indexOf(`${banner}\n`) + banner.length + 1;
  return `${text.slice(0, at)}import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n${text.slice(at)}`;
}

interface RuntimeCacheRecord {
  sourceSha256: string;
  runtime: Omit<RuntimeArtefact, 'path'>;
}

/**
 * Strips (when `strip` exists: symbols are ~18 MB of the ~127 MB binary) and gzips the runtime.
 * Reuses the previous result when the source binary is unchanged.
 */
export async function packageRuntime(source: string, outDir: string): Promise<RuntimeArtefact> {
  await mkdir(outDir, { recursive: true });
  const sourceBytes = await readFile(source);
  const sourceSha256 = sha256Hex(sourceBytes);
  const outFile = join(outDir, RUNTIME_FILE);
  const cacheFile = join(outDir, '.runtime-source.json');
  try {
    const cached = JSON.parse(await readFile(cacheFile, 'utf8')) as RuntimeCacheRecord;
    if (cached.sourceSha256 === sourceSha256) {
      const current = await readFile(outFile);
      if (sha256Hex(current) === cached.runtime.sha256) return { ...cached.runtime, path: outFile };
    }
  } catch {
    // no usable cache: build it
  }
  const work = await mkdtemp(join(tmpdir(), 'nodeherd-runtime-'));
  try {
    const binaryPath = join(work, 'node');
    await copyFile(source, binaryPath);
    let stripped = false;
    try {
      await execFileAsync('strip', [binaryPath]);
      stripped = true;
    } catch {
      // no binutils here: ship the binary with its symbols
    }
    const binary = await readFile(binaryPath);
    const { stdout } = await execFileAsync(binaryPath, ['--version']);
    const compressed = await gzipAsync(binary, { level: 6 });
    await writeAtomically(outFile, compressed);
    const runtime: RuntimeArtefact = {
      file: RUNTIME_FILE,
      path: outFile,
      sha256: sha256Hex(compressed),
      size: compressed.length,
      nodeVersion: stdout.trim(),
      binarySha256: sha256Hex(binary),
      binarySize: binary.length,
      stripped,
    };
    const { path: _path, ...record } = runtime;
    await writeAtomically(cacheFile, `${JSON.stringify({ sourceSha256, runtime: record }, null, 2)}\n`);
    return runtime;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

export async function buildAgent(options: BuildAgentOptions = {}): Promise<AgentArtefacts> {
  const outDir = resolve(options.outDir ?? DEFAULT_OUT_DIR);
  await mkdir(outDir, { recursive: true });
  const version = options.version ?? (await packageVersion());
  const agent = await bundleAgent({
    entry: options.entry ?? join(REPO_ROOT, 'bin/nodeherd-agent.ts'),
    outFile: join(outDir, AGENT_FILE),
    version,
    minify: options.minify ?? true,
  });
  await writeAtomically(join(outDir, `${AGENT_FILE}.sha256`), checksumLine(agent.sha256, AGENT_FILE));
  let runtime: RuntimeArtefact | undefined;
  if (options.runtime !== false) {
    runtime = await packageRuntime(options.runtime ?? process.execPath, outDir);
    await writeAtomically(join(outDir, `${RUNTIME_FILE}.sha256`), checksumLine(runtime.sha256, RUNTIME_FILE));
  }
  const manifestPath = join(outDir, MANIFEST_FILE);
  const strip = ({ path: _path, ...rest }: Artefact) => rest;
  await writeAtomically(
    manifestPath,
    `${JSON.stringify({ version, agent: strip(agent), ...(runtime ? { runtime: strip(runtime) } : {}) }, null, 2)}\n`,
  );
  return { version, agent, ...(runtime ? { runtime } : {}), manifestPath };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'out-dir': { type: 'string' },
      version: { type: 'string' },
      'no-runtime': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(
      'Usage: node src/dist/build-agent.ts [--out-dir dist] [--version X] [--no-runtime]\n',
    );
    return;
  }
  const started = performance.now();
  const result = await buildAgent({
    ...(values['out-dir'] ? { outDir: values['out-dir'] } : {}),
    ...(values.version ? { version: values.version } : {}),
    ...(values['no-runtime'] ? { runtime: false } : {}),
  });
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
  const lines = [`nodeherd-agent ${result.version}`, `  ${result.agent.path}  ${mb(result.agent.size)}`];
  if (result.runtime) {
    const r = result.runtime;
    lines.push(
      `  ${r.path}  ${mb(r.size)} (node ${r.nodeVersion}, ${mb(r.binarySize)} unpacked${r.stripped ? ', stripped' : ''})`,
    );
  }
  lines.push(`  ${result.manifestPath}`, `built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (import.meta.main) {
  main().catch((error: Error) => {
    process.stderr.write(`build-agent: ${error.message}\n`);
    process.exit(1);
  });
}
