// The version this build of nodeherd reports (`*_build_info` metrics, `--version`). A bundle (agent,
// images, the packed CLI) has it compiled in by esbuild's `define`; from a clone it is package.json's.

import { readFileSync } from 'node:fs';

declare const NODEHERD_BUILD_VERSION: string | undefined;

function versionFromPackageJson(): string {
  try {
    const json = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof json.version === 'string' ? json.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export const buildVersion: string =
  typeof NODEHERD_BUILD_VERSION === 'string' ? NODEHERD_BUILD_VERSION : versionFromPackageJson();

/** Labels of a `*_build_info` series (value 1), as Prometheus' own `prometheus_build_info` has them. */
export const buildInfoLabels = { version: buildVersion, nodeversion: process.version } as const;
