// Sizes of the OCI images `npm run images` builds: the compressed layer (what a registry stores and a
// node pulls), the unpacked file system, and the share of it that is nodeherd's own bundle (the rest is
// the Node runtime and its libraries). Needs root, buildah and umoci (run-all skips it otherwise).
//
//   node bench/images.bench.ts

import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  BUILDAH_STORAGE,
  buildImage,
  IMAGE_KINDS,
  imageBuildUnavailableReason,
  imageSpecs,
} from '../src/dist/images/build-images.ts';
import { reportFigure } from './support/report.ts';

const execFileAsync = promisify(execFile);

async function main(): Promise<void> {
  const unavailable = imageBuildUnavailableReason();
  if (unavailable) throw new Error(unavailable);
  const out = await mkdtemp(join(tmpdir(), 'nodeherd-images-bench-'));
  const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
  try {
    for (const kind of IMAGE_KINDS) {
      // Its own tag, removed afterwards: the bench leaves `npm run images`' images alone.
      const image = await buildImage(imageSpecs()[kind], { outDir: out, tag: 'bench' });
      try {
        const note = `FROM scratch, Node ${process.version} stripped, ${image.packages.length} Debian packages`;
        reportFigure({
          bench: 'images',
          name: `${kind} image: compressed layer`,
          value: mb(image.layerBytes),
          unit: 'MB',
          note,
        });
        reportFigure({
          bench: 'images',
          name: `${kind} image: unpacked`,
          value: mb(image.rootfsBytes),
          unit: 'MB',
        });
        reportFigure({
          bench: 'images',
          name: `${kind} image: nodeherd bundle in it`,
          value: mb(image.bundleBytes),
          unit: 'MB',
        });
        reportFigure({
          bench: 'images',
          name: `${kind} image: build time`,
          value: Math.round(image.seconds),
          unit: 's',
        });
        process.stdout.write(`${kind}: ${image.packages.join(', ')}\n`);
      } finally {
        await execFileAsync('buildah', [...BUILDAH_STORAGE, 'rmi', image.reference]).catch(() => undefined);
      }
    }
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  process.stderr.write(`images bench: ${error.message}\n`);
  process.exit(1);
});
