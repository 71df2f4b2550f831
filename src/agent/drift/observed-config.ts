// What the node has, as a RenderedConfig: the desired config with every managed thing replaced by what
// is found on the node (a file's digest, a unit file, a drop-in, enablement, running state, a
// package's version). plan(observed, desired) then yields exactly the actions that repair the drift,
// with the restarts the normal apply would do: the planner is the one comparison (drift-plan.ts).
// Things found as desired are the desired objects themselves, so the planner sees no change in them.
// Repositories are not observed (their files are checked by the package manager on the next index
// refresh, not here).

import { isTemplateUnit } from '../../api/config-rules.ts';
import { managerOf, packageManagerRules } from '../../api/packages/registry.ts';
import type { RenderedConfig, RenderedFile, RenderedPackage, RenderedUnit } from '../../api/types.ts';
import { expectedDigest } from '../apply/file-content.ts';
import type { SecretDigests } from '../apply/secret-digests.ts';
import type { FileExecutor, PackageExecutor, SystemdExecutor } from '../executors/types.ts';
import { detectDrift } from '../state/drift.ts';

export interface NodeObservers {
  files: FileExecutor;
  systemd: SystemdExecutor;
  packages: PackageExecutor;
  /** What the agent remembers of the Secret values it wrote: without it, secretRef contents go unchecked. */
  secretDigests?: SecretDigests;
}

/** Why an action of the drift plan is needed, by the plan action id it explains (e.g. write-file:/etc/x). */
export type DriftNotes = Map<string, string>;

export interface Observation {
  observed: RenderedConfig;
  notes: DriftNotes;
}

/** Stands for content found on the node that is not the desired content (never written anywhere). */
function driftedContent(found: string): string {
  return `# drifted: ${found}\n`;
}

/** Unit states that count as running (a unit being started or reloaded is on its way). */
const RUNNING_STATES = new Set(['active', 'activating', 'reloading']);

export async function observeConfig(desired: RenderedConfig, node: NodeObservers): Promise<Observation> {
  const notes: DriftNotes = new Map();
  const files = await observeFiles(desired.files, node.files, notes, node.secretDigests);
  const units: RenderedUnit[] = [];
  for (const unit of desired.units) units.push(await observeUnit(unit, node.systemd, notes));
  const packages: RenderedPackage[] = [];
  for (const pkg of desired.packages) packages.push(await observePackage(pkg, node.packages, notes));
  return { observed: { ...desired, files, units, packages }, notes };
}

async function observeFiles(
  desired: readonly RenderedFile[],
  files: FileExecutor,
  notes: DriftNotes,
  secretDigests: SecretDigests | undefined,
): Promise<RenderedFile[]> {
  const drifted = await detectDrift(
    desired.map((file) => {
      const digest = expectedDigest(file, secretDigests);
      return {
        path: file.path,
        mode: file.mode,
        owner: file.owner,
        group: file.group,
        ...(digest !== undefined ? { sha256: digest } : {}),
      };
    }),
    files,
  );
  const observed: RenderedFile[] = [];
  for (const file of desired) {
    const found = drifted.filter((d) => d.path === file.path);
    if (found.length === 0) {
      observed.push(file);
      continue;
    }
    notes.set(
      `write-file:${file.path}`,
      `file ${file.path}: ${found.map((d) => (d.reason === 'missing' ? 'missing' : `${d.reason} (${d.detail})`)).join(', ')}`,
    );
    if (found.some((d) => d.reason === 'missing')) continue; // absent: the plan writes it as added
    let seen: RenderedFile = file;
    for (const d of found) {
      if (d.reason === 'content')
        seen = { ...seen, content: { inline: { data: driftedContent(d.detail), encoding: 'plain' } } };
      // Any other value makes the planner see the difference; the repair writes the desired one.
      if (d.reason === 'mode') seen = { ...seen, mode: file.mode === 0 ? 1 : 0 };
      if (d.reason === 'owner') seen = { ...seen, owner: `${String(file.owner ?? 'root')}~drifted` };
    }
    observed.push(seen);
  }
  return observed;
}

async function observeUnit(
  unit: RenderedUnit,
  systemd: SystemdExecutor,
  notes: DriftNotes,
): Promise<RenderedUnit> {
  let seen: RenderedUnit = unit;
  if (unit.content !== undefined) {
    const content = await systemd.readUnit(unit.name);
    if (content !== unit.content) {
      notes.set(
        `write-unit:${unit.name}`,
        `unit ${unit.name}: ${content === undefined ? 'unit file missing' : 'unit file changed'}`,
      );
      seen = { ...seen, content: driftedContent(content === undefined ? 'missing' : 'changed') };
    }
  }
  const dropIns: RenderedUnit['dropIns'] = [];
  for (const dropIn of unit.dropIns) {
    const content = await systemd.readDropIn(unit.name, dropIn.name);
    if (content === dropIn.content) {
      dropIns.push(dropIn);
      continue;
    }
    notes.set(
      `write-dropin:${unit.name}/${dropIn.name}`,
      `drop-in ${unit.name}/${dropIn.name}: ${content === undefined ? 'missing' : 'changed'}`,
    );
    if (content !== undefined) dropIns.push({ ...dropIn, content: driftedContent('changed') });
  }
  if (dropIns.some((d, i) => d !== unit.dropIns[i]) || dropIns.length !== unit.dropIns.length)
    seen = { ...seen, dropIns };
  // A template's enablement is its instances' and it never runs itself: neither is observed.
  if (isTemplateUnit(unit.name) || (unit.enabled === undefined && unit.state === undefined)) return seen;
  if (unit.enabled !== undefined) {
    // static, indirect, masked, not-found...: not enabled. A unit desired disabled is satisfied by them.
    const fileState = await systemd.unitFileState(unit.name);
    const enabled = fileState === 'enabled' || fileState === 'enabled-runtime';
    if (enabled !== unit.enabled) {
      notes.set(
        `${unit.enabled ? 'enable' : 'disable'}-unit:${unit.name}`,
        `unit ${unit.name}: ${fileState}, expected ${unit.enabled ? 'enabled' : 'disabled'}`,
      );
      seen = { ...seen, enabled };
    }
  }
  if (unit.state !== undefined) {
    const status = await systemd.status(unit.name);
    const state = RUNNING_STATES.has(status.activeState) ? 'running' : 'stopped';
    if (state !== unit.state) {
      notes.set(
        `${unit.state === 'running' ? 'start' : 'stop'}-unit:${unit.name}`,
        `unit ${unit.name}: ${status.activeState} (${status.subState}), expected ${unit.state}`,
      );
      seen = { ...seen, state };
    }
  }
  return seen;
}

async function observePackage(
  pkg: RenderedPackage,
  packages: PackageExecutor,
  notes: DriftNotes,
): Promise<RenderedPackage> {
  const installed = await packages.installedVersion(pkg.name);
  if (pkg.state === 'absent') {
    if (installed === undefined) return pkg;
    notes.set(`remove-package:${pkg.name}`, `package ${pkg.name}: ${installed} installed, expected absent`);
    return { ...pkg, state: 'present', version: installed };
  }
  if (installed === undefined) {
    notes.set(`install-package:${pkg.name}`, `package ${pkg.name}: not installed`);
    return { ...pkg, state: 'absent' };
  }
  if (pkg.version === undefined || packageManagerRules(managerOf(pkg)).versionMatches(pkg.version, installed))
    return pkg;
  // A pinned package is held: one that moved anyway was moved by hand, past the hold.
  const held = (await packages.isHeld(pkg.name)) ? ' (held, and moved anyway)' : '';
  notes.set(
    `install-package:${pkg.name}`,
    `package ${pkg.name}: ${installed} installed, expected ${pkg.version}${held}`,
  );
  return { ...pkg, version: installed };
}
