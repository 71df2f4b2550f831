// The controller as the image runs it: bin/nodeherd-controller.ts bundled and minified the way
// src/dist/images bundles it, and the image's Node flags. Benches measure what ships, not the
// TypeScript sources (type stripping and unbundled node_modules cost 70–90 MB of RSS at 100 nodes).

import { join } from 'node:path';
import { bundleAgent } from '../../src/dist/build-agent.ts';
import { CONTROLLER_NODE_FLAGS } from '../../src/dist/images/build-images.ts';

const ROOT = join(import.meta.dirname, '..', '..');

export const CONTROLLER_SOURCE_ENTRY = join(ROOT, 'bin', 'nodeherd-controller.ts');

/** Builds the controller bundle into `dir`; returns its path. */
export async function controllerBundle(dir: string): Promise<string> {
  const outFile = join(dir, 'nodeherd-controller.mjs');
  await bundleAgent({
    entry: CONTROLLER_SOURCE_ENTRY,
    outFile,
    version: '0.0.0-bench',
    minify: true,
    name: 'nodeherd-controller',
  });
  return outFile;
}

/** The Node flags the controller image starts with. */
export const SHIPPED_CONTROLLER_FLAGS: readonly string[] = CONTROLLER_NODE_FLAGS;
