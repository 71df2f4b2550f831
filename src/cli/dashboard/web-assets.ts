// The dashboard page's script: web/app.ts bundled for the browser (one ES module, no CDN, nothing
// fetched from the network). From a clone it is bundled with esbuild on first use; the installed CLI
// has no esbuild and no sources, so src/dist/build-cli.ts bundles it at build time and puts the result
// in place of this module (DASHBOARD_SCRIPT_MODULE).

import { fileURLToPath } from 'node:url';

/** The file build-cli.ts replaces with the prebuilt script. */
export const DASHBOARD_SCRIPT_MODULE = fileURLToPath(import.meta.url);

const ENTRY = fileURLToPath(new URL('./web/app.ts', import.meta.url));

/** Bundles web/app.ts for the browser; build-cli.ts calls it too. */
export async function buildDashboardScript(): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

let script: Promise<string> | undefined;

export function dashboardScript(): Promise<string> {
  script ??= buildDashboardScript().catch((error: Error) => {
    script = undefined;
    throw new Error(
      `cannot bundle the dashboard page's script (${error.message}); run from a clone with its devDependencies, or from the built CLI`,
    );
  });
  return script;
}
