// Where the browser tests put their screenshots. The committed ones in docs/images/ are rewritten only
// when asked (`npm run screenshots`, NODEHERD_UPDATE_SCREENSHOTS=1): a plain `npm test` leaves the
// worktree as it found it, and writes them under the system's temporary directory instead.

import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DOCS_IMAGES = new URL('../../docs/images/', import.meta.url).pathname;

/** The directory screenshots are written to now. */
export function screenshotDir(): string {
  if (process.env.NODEHERD_UPDATE_SCREENSHOTS === '1') return DOCS_IMAGES;
  const dir = join(tmpdir(), 'nodeherd-screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Writes a PNG screenshot under its name; throws when it came out empty. Returns its path. */
export function saveScreenshot(name: string, png: Uint8Array): string {
  if (png.byteLength === 0) throw new Error(`screenshot ${name} is empty`);
  const path = join(screenshotDir(), name);
  writeFileSync(path, png);
  if (statSync(path).size !== png.byteLength) throw new Error(`screenshot ${name} was not written whole`);
  return path;
}
