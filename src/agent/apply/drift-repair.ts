// At start: compare the managed files on disk with the last applied revision and write back the
// ones that changed (edited by hand, deleted, or brought back stale after a crash: gardener#10819).
// Only files: units and drop-ins are checked by systemd's own view the next time they change.
// Dependent units are not restarted: the repair restores what they were started with.

import type { RenderedConfig } from '../../api/types.ts';
import type { FileExecutor } from '../executors/types.ts';
import { type DriftedFile, detectDrift } from '../state/drift.ts';
import { expectedDigest, fileContent, type SecretSource } from './file-content.ts';

export interface DriftRepairResult {
  drifted: DriftedFile[];
  /** Paths written back. */
  repaired: string[];
  /** Paths that could not be written back, with why. */
  failed: { path: string; error: string }[];
}

export async function repairDrift(
  config: RenderedConfig,
  files: FileExecutor,
  secrets: SecretSource | undefined,
): Promise<DriftRepairResult> {
  const expected = config.files.map((file) => {
    const digest = expectedDigest(file);
    return {
      path: file.path,
      mode: file.mode,
      owner: file.owner,
      group: file.group,
      ...(digest !== undefined ? { sha256: digest } : {}),
    };
  });
  const drifted = await detectDrift(expected, files);
  const result: DriftRepairResult = { drifted, repaired: [], failed: [] };
  const paths = [...new Set(drifted.map((d) => d.path))];
  for (const path of paths) {
    const file = config.files.find((f) => f.path === path)!;
    try {
      const content = await fileContent(file, secrets);
      await files.write(path, content, { mode: file.mode, owner: file.owner, group: file.group });
      result.repaired.push(path);
    } catch (error) {
      result.failed.push({ path, error: (error as Error).message });
    }
  }
  return result;
}
