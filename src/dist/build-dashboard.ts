// Bundles the dashboard page's script (src/cli/dashboard/web/app.ts) for the browser: one ES module,
// nothing fetched from the network. The CLI bundles it on first use when run from a clone
// (src/cli/dashboard/web-assets.ts); build-cli.ts bundles it at build time for the installed CLI,
// which has neither the sources nor esbuild.

import { fileURLToPath } from 'node:url';

/** The page's entry point. */
export const DASHBOARD_ENTRY = fileURLToPath(new URL('../cli/dashboard/web/app.ts', import.meta.url));
/** The module that serves the script; build-cli.ts puts the prebuilt script in its place. */
export const DASHBOARD_SCRIPT_MODULE = fileURLToPath(
  new URL('../cli/dashboard/web-assets.ts', import.meta.url),
);

export async function buildDashboardScript(): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [DASHBOARD_ENTRY],
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
