// Bundles the dashboard page's script (web/app.ts) for the browser: one ES module,
// nothing fetched from the network. The CLI bundles it on first use when run from a clone
// (web-assets.ts); src/dist/build-cli.ts bundles it at build time for the installed CLI,
// which has neither the sources nor esbuild.

// It lives beside the page, not in src/dist: the CLI run from a clone needs it, and no part imports
// src/dist's builders (the layering rule).

import { fileURLToPath } from 'node:url';

/** The page's entry point. */
export const DASHBOARD_ENTRY = fileURLToPath(new URL('./web/app.ts', import.meta.url));
/** The module that serves the script; src/dist/build-cli.ts puts the prebuilt script in its place. */
export const DASHBOARD_SCRIPT_MODULE = fileURLToPath(new URL('./web-assets.ts', import.meta.url));

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
