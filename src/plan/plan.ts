// plan(): the ONE function that turns (last applied, desired) into ordered actions and a disruption
// level. The agent executes it, the controller reads its disruption to decide on drain or reboot,
// the CLI prints it. Pure: no I/O, no clock, same input → same plan.
//
// Order (see docs/plan.md for the reasoning):
//   1. stop, then disable units nodeherd created that leave the config (before anything they use changes;
//      disabling needs the unit file, which is removed in step 6)
//   2. repositories: remove, then add or rewrite
//   3. refresh a package manager's index, if its repositories changed or one of its packages
//      is to be installed (a stale index fails installs)
//   4. packages: release holds whose pin went, remove, then install (so our files written next win over
//      packages' defaults); a pinned install holds the package
//   5. files: write
//   6. unit files and drop-ins: write, remove; remove unit files of removed units
//   7. daemon-reload, once, if any unit file or drop-in changed (or a policy asks for it)
//   8. enable / disable
//   9. stop units whose state became stopped
//  10. restart or reload changed units
//  11. start units that should run and do not yet
//  12. remove files that left the config (after the restarts: a running program may still read them)
//  13. restart the agent's own unit, if it changed (last: it ends this process; the journal resumes)
//  14. reboot, if required; then restarts and reloads are dropped (the reboot does them)
//
// Rules: a unit restarts when its file, a drop-in, a file in its filePaths or a package in its packages
// changed (or the template it is an instance of changed); policies replace that restart (Reload, None,
// DaemonReload, Drain, Reboot). Unchanged things cause nothing. Units nodeherd did not create (no
// content) are never deleted or stopped for leaving the config: only their drop-ins go, with a
// restart if they run. With no last-applied revision everything counts as new: all is written, units
// nodeherd creates are started (not restarted), units it did not create get restarted when they have
// drop-ins, files or packages from the config (they existed before and may run without them).

import { isTemplateUnit, templateOf } from '../api/config-rules.ts';
import {
  indexRefreshOf,
  managerOf,
  PACKAGE_MANAGER_NAMES,
  type PackageManagerName,
} from '../api/packages/registry.ts';
import type {
  DisruptionAction,
  RenderedConfig,
  RenderedFile,
  RenderedPackage,
  RenderedPolicies,
  RenderedRepository,
  RenderedUnit,
} from '../api/types.ts';
import { canonicalJson } from '../util/canonical-json.ts';
import {
  defaultAction,
  filePolicy,
  maxDisruption,
  packagePolicy,
  strongerAction,
  unitAction,
} from './policies.ts';
import { summarize } from './summary.ts';
import type {
  Action,
  ChangeSet,
  Changes,
  DisableUnitAction,
  Disruption,
  EnableUnitAction,
  Plan,
  StartUnitAction,
  StopUnitAction,
} from './types.ts';

export interface PlanInput {
  /** A rendered config (as in NodeConfigRevision.spec.config): defaulted and complete. */
  config: RenderedConfig;
}

export interface PlanOptions {
  /** Replace the desired config's disruptionPolicies (what-if previews). */
  policies?: RenderedPolicies;
  /** The agent's own unit: if it must restart, that happens last. */
  selfUnit?: string;
}

const PHASES = [
  'retire-stop',
  'retire-disable',
  'repositories',
  'index-refresh',
  'packages',
  'files',
  'units',
  'daemon-reload',
  'enablement',
  'stop',
  'restart',
  'start',
  'remove-files',
  'self',
  'reboot',
] as const;
type Phase = (typeof PHASES)[number];

interface Trigger {
  action: DisruptionAction;
  reason: string;
}

type NamedUnitAction = EnableUnitAction | DisableUnitAction | StopUnitAction | StartUnitAction;

/** An action on a unit that carries nothing but the unit's name; its id is `<kind>:<name>`. */
function unitStep(kind: NamedUnitAction['kind'], name: string, reason: string): NamedUnitAction {
  return { kind, id: `${kind}:${name}`, name, reason };
}

function emptyChangeSet(): ChangeSet {
  return { added: [], changed: [], removed: [] };
}

function byKey<T>(items: readonly T[], key: (item: T) => string): Map<string, T> {
  return new Map(
    [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)).map((i) => [key(i), i]),
  );
}

function sortedUnion(a: Iterable<string>, b: Iterable<string>): string[] {
  return [...new Set([...a, ...b])].sort();
}

function fileBytes(file: RenderedFile): Buffer | undefined {
  const inline = file.content.inline;
  if (!inline) return undefined;
  return Buffer.from(inline.data, inline.encoding === 'base64' ? 'base64' : 'utf8');
}

/** Which aspects of a file differ; content compares decoded bytes (plain "a" equals base64 "YQ=="). */
function fileDifferences(a: RenderedFile, b: RenderedFile): string[] {
  const differences: string[] = [];
  const bytesA = fileBytes(a);
  const bytesB = fileBytes(b);
  let sameContent: boolean;
  if (bytesA && bytesB) sameContent = bytesA.equals(bytesB);
  else if (!bytesA && !bytesB)
    sameContent = canonicalJson(a.content.secretRef) === canonicalJson(b.content.secretRef);
  else sameContent = false;
  if (!sameContent) differences.push('content');
  for (const field of ['mode', 'owner', 'group'] as const) if (a[field] !== b[field]) differences.push(field);
  return differences;
}

/** Packages a config pins to a version are held, so nothing but nodeherd moves them. */
function isHeld(pkg: RenderedPackage): boolean {
  return pkg.state === 'present' && pkg.version !== undefined;
}

function dropInMap(unit: RenderedUnit | undefined): Map<string, string> {
  return new Map((unit?.dropIns ?? []).map((d) => [d.name, d.content]));
}

class PlanBuilder {
  private readonly prev: RenderedConfig | undefined;
  private readonly next: RenderedConfig;
  private readonly initial: boolean;
  private readonly policies: RenderedPolicies;
  private readonly selfUnit: string | undefined;
  private readonly prevUnits: Map<string, RenderedUnit>;
  private readonly nextUnits: Map<string, RenderedUnit>;

  private readonly phases = new Map<Phase, Action[]>(PHASES.map((p) => [p, []]));
  private readonly changes: Changes = {
    files: emptyChangeSet(),
    units: emptyChangeSet(),
    packages: emptyChangeSet(),
    repositories: emptyChangeSet(),
  };
  private readonly notes: string[] = [];
  private readonly triggers = new Map<string, Trigger[]>();
  /** Units whose file or drop-ins changed (they need the daemon-reload and, if running, a restart). */
  private readonly definitionChanged = new Map<string, string[]>();
  private changedPackages: string[] = [];
  /** Package managers whose repositories changed, and those with packages to install. */
  private readonly changedRepositoryManagers = new Set<PackageManagerName>();
  private readonly installingManagers = new Set<PackageManagerName>();
  private daemonReloadReasons: string[] = [];
  private drainReasons: string[] = [];
  private rebootReasons: string[] = [];

  constructor(prev: RenderedConfig | undefined, next: RenderedConfig, options: PlanOptions) {
    this.prev = prev;
    this.next = next;
    this.initial = prev === undefined;
    this.policies = options.policies ?? next.disruptionPolicies;
    this.selfUnit = options.selfUnit;
    this.prevUnits = byKey(prev?.units ?? [], (u) => u.name);
    this.nextUnits = byKey(next.units, (u) => u.name);
  }

  private push(phase: Phase, action: Action): void {
    this.phases.get(phase)!.push(action);
  }

  private trigger(unit: string, action: DisruptionAction, reason: string): void {
    const list = this.triggers.get(unit) ?? [];
    list.push({ action, reason });
    this.triggers.set(unit, list);
  }

  /** Effects that are not about one unit: DaemonReload, Drain, Reboot. */
  private globalEffect(action: DisruptionAction, reason: string): void {
    if (action === 'DaemonReload') this.daemonReloadReasons.push(reason);
    else if (action === 'Drain') this.drainReasons.push(reason);
    else if (action === 'Reboot') this.rebootReasons.push(reason);
  }

  build(): Plan {
    if (this.initial) this.notes.push('no last-applied revision: everything counts as new');
    this.repositories();
    this.packages();
    this.indexRefreshes();
    const changedFiles = this.files();
    this.units();
    this.fileTriggers(changedFiles);
    this.packageTriggers();
    this.runtime();
    if (this.daemonReloadReasons.length > 0) {
      this.push('daemon-reload', {
        kind: 'daemon-reload',
        id: 'daemon-reload',
        reason: [...new Set(this.daemonReloadReasons)].join('; '),
      });
    }
    if (this.rebootReasons.length > 0) {
      // The reboot restarts everything; individual restarts and reloads would only add disruption.
      for (const phase of ['restart', 'self'] as const) this.phases.set(phase, []);
      this.push('reboot', {
        kind: 'reboot',
        id: 'reboot',
        reason: [...new Set(this.rebootReasons)].join('; '),
      });
    }
    const actions = PHASES.flatMap((p) => this.phases.get(p)!);
    const disruption = this.disruption(actions);
    if (this.drainReasons.length > 0) this.notes.push(`drain: ${[...new Set(this.drainReasons)].join('; ')}`);
    return {
      actions,
      disruption,
      summary: summarize(this.changes, actions, disruption),
      changes: this.changes,
      initial: this.initial,
      notes: this.notes,
    };
  }

  private disruption(actions: Action[]): Disruption {
    let level: Disruption = 'None';
    for (const action of actions) {
      if (action.kind === 'reboot') level = maxDisruption(level, 'Reboot');
      else if (action.kind === 'restart-unit' || action.kind === 'stop-unit')
        level = maxDisruption(level, 'Restart');
      else if (action.kind === 'reload-unit') level = maxDisruption(level, 'Reload');
    }
    if (this.drainReasons.length > 0) level = maxDisruption(level, 'Drain');
    return level;
  }

  /** One refresh per package manager whose repositories changed or whose packages are to be installed. */
  private indexRefreshes(): void {
    for (const manager of PACKAGE_MANAGER_NAMES) {
      const reposChanged = this.changedRepositoryManagers.has(manager);
      if (!reposChanged && !this.installingManagers.has(manager)) continue;
      const kind = indexRefreshOf(manager);
      this.push('index-refresh', {
        kind,
        id: kind,
        reason: reposChanged ? 'repositories changed' : 'packages to install',
      });
    }
  }

  private repositories(): void {
    const prev = byKey(this.prev?.repositories ?? [], (r) => r.name);
    const next = byKey(this.next.repositories, (r) => r.name);
    for (const [name, old] of prev) {
      if (next.has(name)) continue;
      this.changedRepositoryManagers.add(managerOf(old));
      this.changes.repositories.removed.push(name);
      this.push('repositories', {
        kind: 'remove-repository',
        id: `remove-repository:${name}`,
        name,
        ...(old.manager !== undefined ? { manager: old.manager } : {}),
        reason: 'removed',
      });
    }
    for (const [name, repo] of next) {
      const old: RenderedRepository | undefined = prev.get(name);
      if (old && canonicalJson(old) === canonicalJson(repo)) continue;
      this.changedRepositoryManagers.add(managerOf(repo));
      // A repository moved to another manager leaves the old one's sources too.
      if (old) this.changedRepositoryManagers.add(managerOf(old));
      (old ? this.changes.repositories.changed : this.changes.repositories.added).push(name);
      this.push('repositories', {
        kind: 'add-repository',
        id: `add-repository:${name}`,
        repository: repo,
        reason: old ? 'changed' : 'added',
      });
    }
  }

  private packages(): void {
    const prev = byKey(this.prev?.packages ?? [], (p) => p.name);
    const next = byKey(this.next.packages, (p) => p.name);
    const releases: Action[] = [];
    const removals: Action[] = [];
    const installs: Action[] = [];
    // A pinned package is held; its hold goes with the pin (the package stays as it is).
    const release = (pkg: RenderedPackage, reason: string) =>
      releases.push({
        kind: 'release-package',
        id: `release-package:${pkg.name}`,
        name: pkg.name,
        ...(pkg.manager !== undefined ? { manager: pkg.manager } : {}),
        reason,
      });
    for (const [name, old] of prev) {
      if (next.has(name)) continue;
      this.changes.packages.removed.push(name);
      if (isHeld(old)) release(old, 'no longer managed');
    }
    for (const [name, pkg] of next) {
      const old: RenderedPackage | undefined = prev.get(name);
      if (pkg.state === 'absent') {
        if (old?.state === 'absent') continue;
        removals.push({
          kind: 'remove-package',
          id: `remove-package:${name}`,
          name,
          ...(pkg.manager !== undefined ? { manager: pkg.manager } : {}),
          reason: old ? 'state absent' : 'added as absent',
        });
      } else {
        const versionChanged = pkg.version !== undefined && pkg.version !== old?.version;
        // An unpinned package that is installed stays as it is: unpinning is no reason to touch it.
        if (old?.state === 'present' && !versionChanged) {
          if (canonicalJson(old) !== canonicalJson(pkg)) this.changes.packages.changed.push(name);
          if (isHeld(old) && !isHeld(pkg)) release(pkg, 'version unpinned');
          continue;
        }
        const reason = !old
          ? 'added'
          : old.state === 'absent'
            ? 'state present'
            : `version ${old.version ?? 'any'} → ${pkg.version}`;
        this.installingManagers.add(managerOf(pkg));
        installs.push({
          kind: 'install-package',
          id: `install-package:${name}`,
          name,
          ...(pkg.version !== undefined ? { version: pkg.version } : {}),
          ...(pkg.manager !== undefined ? { manager: pkg.manager } : {}),
          reason,
        });
      }
      (old ? this.changes.packages.changed : this.changes.packages.added).push(name);
      this.changedPackages.push(name);
    }
    for (const action of [...releases, ...removals, ...installs]) this.push('packages', action);
  }

  /** Writes and removals; returns changed paths (added, changed, removed) with a reason each. */
  private files(): Map<string, string> {
    const prev = byKey(this.prev?.files ?? [], (f) => f.path);
    const next = byKey(this.next.files, (f) => f.path);
    const changed = new Map<string, string>();
    for (const [path, file] of next) {
      const old = prev.get(path);
      const differences = old ? fileDifferences(old, file) : [];
      if (old && differences.length === 0) continue;
      const reason = old ? `${differences.join(', ')} changed` : 'added';
      (old ? this.changes.files.changed : this.changes.files.added).push(path);
      changed.set(path, `file ${path} ${reason}`);
      this.push('files', { kind: 'write-file', id: `write-file:${path}`, file, reason });
    }
    for (const path of prev.keys()) {
      if (next.has(path)) continue;
      this.changes.files.removed.push(path);
      changed.set(path, `file ${path} removed`);
      this.push('remove-files', { kind: 'remove-file', id: `remove-file:${path}`, path, reason: 'removed' });
    }
    return changed;
  }

  /** Unit files and drop-ins; retirement of removed units; records definition changes. */
  private units(): void {
    const prev = this.prevUnits;
    const next = this.nextUnits;
    for (const name of sortedUnion(prev.keys(), next.keys())) {
      const old = prev.get(name);
      const unit = next.get(name);
      if (!unit) {
        this.retire(old!);
        continue;
      }
      const reasons: string[] = [];
      const written = this.phases.get('units')!.length;
      if (unit.content !== undefined && unit.content !== old?.content) {
        this.push('units', {
          kind: 'write-unit',
          id: `write-unit:${name}`,
          name,
          content: unit.content,
          reason: old ? (old.content === undefined ? 'now created by nodeherd' : 'changed') : 'added',
        });
        if (old) reasons.push('unit file changed');
      } else if (unit.content === undefined && old?.content !== undefined) {
        this.push('units', {
          kind: 'remove-unit',
          id: `remove-unit:${name}`,
          name,
          reason: 'no longer created by nodeherd (a packaged unit of that name takes over)',
        });
        reasons.push('unit file removed');
      }
      const oldDropIns = dropInMap(old);
      for (const dropIn of unit.dropIns) {
        const before = oldDropIns.get(dropIn.name);
        if (before === dropIn.content) continue;
        this.push('units', {
          kind: 'write-dropin',
          id: `write-dropin:${name}/${dropIn.name}`,
          unit: name,
          name: dropIn.name,
          content: dropIn.content,
          reason: before === undefined ? 'added' : 'changed',
        });
        // A new unit's drop-ins are part of its first start; anything else is a change to a unit that exists.
        if (old || unit.content === undefined)
          reasons.push(`drop-in ${dropIn.name} ${before === undefined ? 'added' : 'changed'}`);
      }
      for (const dropInName of oldDropIns.keys()) {
        if (unit.dropIns.some((d) => d.name === dropInName)) continue;
        this.push('units', {
          kind: 'remove-dropin',
          id: `remove-dropin:${name}/${dropInName}`,
          unit: name,
          name: dropInName,
          reason: 'removed',
        });
        reasons.push(`drop-in ${dropInName} removed`);
      }
      if (this.phases.get('units')!.length > written) this.daemonReloadReasons.push('unit files changed');
      if (!old) this.changes.units.added.push(name);
      else if (canonicalJson(old) !== canonicalJson(unit)) this.changes.units.changed.push(name);
      if (reasons.length > 0) {
        this.definitionChanged.set(name, reasons);
        for (const reason of reasons) this.trigger(name, unitAction(this.policies, unit), reason);
      }
    }
    // An instance (foo@bar.service) runs its template's definition (foo@.service).
    for (const [name, unit] of next) {
      const template = templateOf(name);
      const reasons = template === undefined ? undefined : this.definitionChanged.get(template);
      if (!reasons || !prev.has(name)) continue;
      this.trigger(name, unitAction(this.policies, unit), `template ${template} changed`);
    }
  }

  /** A unit that left the config: nodeherd's own units go entirely; others only lose their drop-ins. */
  private retire(old: RenderedUnit): void {
    const name = old.name;
    this.changes.units.removed.push(name);
    const created = old.content !== undefined;
    if (created && !isTemplateUnit(name) && old.state === 'running') {
      this.push('retire-stop', unitStep('stop-unit', name, 'removed'));
    }
    if (created && old.enabled === true) {
      this.push('retire-disable', unitStep('disable-unit', name, 'removed'));
    }
    for (const dropIn of old.dropIns) {
      this.push('units', {
        kind: 'remove-dropin',
        id: `remove-dropin:${name}/${dropIn.name}`,
        unit: name,
        name: dropIn.name,
        reason: 'unit removed',
      });
    }
    if (created)
      this.push('units', { kind: 'remove-unit', id: `remove-unit:${name}`, name, reason: 'removed' });
    if (created || old.dropIns.length > 0) this.daemonReloadReasons.push('unit files removed');
    if (!created && old.dropIns.length > 0 && old.state !== 'stopped' && !isTemplateUnit(name)) {
      const action = unitAction(this.policies, old);
      this.runtimeChange(name, [{ action, reason: 'drop-ins removed' }], true);
    }
  }

  /** Units of the desired config that list the path or package now or listed it before. */
  private unitsListing(key: string, field: 'filePaths' | 'packages'): RenderedUnit[] {
    return [...this.nextUnits.values()].filter(
      (u) => u[field].includes(key) || (this.prevUnits.get(u.name)?.[field].includes(key) ?? false),
    );
  }

  private fileTriggers(changed: Map<string, string>): void {
    for (const [path, reason] of changed) {
      const policy = filePolicy(this.policies, path);
      const units = this.unitsListing(path, 'filePaths');
      this.relate(policy, units, reason, `file ${path}`);
    }
  }

  private packageTriggers(): void {
    for (const name of this.changedPackages) {
      const policy = packagePolicy(this.policies, name);
      const units = this.unitsListing(name, 'packages');
      this.relate(policy, units, `package ${name} changed`, `package ${name}`);
    }
  }

  /** Applies a changed file's or package's policy to the units that depend on it. */
  private relate(
    policy: DisruptionAction | undefined,
    units: RenderedUnit[],
    reason: string,
    what: string,
  ): void {
    if (policy === 'DaemonReload' || policy === 'Drain' || policy === 'Reboot')
      this.globalEffect(policy, reason);
    if (policy === 'DaemonReload' || policy === 'Reboot' || policy === 'None') return;
    if (units.length === 0) {
      if (policy === 'Reload' || policy === 'Restart') {
        this.notes.push(
          `policy ${policy} for ${what}: no unit lists it, so nothing is ${policy === 'Reload' ? 'reloaded' : 'restarted'}`,
        );
      } else if (policy === undefined) {
        this.globalEffect(defaultAction(this.policies), reason);
      }
      return;
    }
    for (const unit of units) {
      // Drain as a file policy drains the node AND restarts the dependants as usual.
      const action = policy === undefined || policy === 'Drain' ? unitAction(this.policies, unit) : policy;
      this.trigger(unit.name, action, reason);
    }
  }

  /** Enablement and runtime state of every unit in the desired config. */
  private runtime(): void {
    for (const [name, unit] of this.nextUnits) {
      const old = this.prevUnits.get(name);
      const created = unit.content !== undefined;
      // Known to be absent from the system: created by nodeherd and not there before (first apply: unknown).
      const brandNew = created && !old && !this.initial;
      if (unit.enabled === true) {
        const fileChanged = this.definitionChanged.get(name)?.includes('unit file changed') ?? false;
        if (old?.enabled !== true || fileChanged) {
          const reason = old?.enabled === true ? 'unit file changed' : 'enabled';
          this.push('enablement', unitStep('enable-unit', name, reason));
        }
      } else if (unit.enabled === false && !brandNew && old?.enabled !== false) {
        this.push('enablement', unitStep('disable-unit', name, 'disabled'));
      }
      if (isTemplateUnit(name)) continue;
      const triggers = this.triggers.get(name) ?? [];
      if (unit.state === 'stopped') {
        // A stopped unit is not restarted, reloaded, drained for or rebooted for.
        if (!brandNew && old?.state !== 'stopped') {
          this.push('stop', unitStep('stop-unit', name, old ? 'state stopped' : 'should not run'));
        }
        continue;
      }
      if (unit.state === 'running' && ((created && !old) || old?.state === 'stopped')) {
        // Not running before: starting it loads its current definition.
        this.push('start', unitStep('start-unit', name, old ? 'state running' : 'added'));
        continue;
      }
      const restarted = this.runtimeChange(name, triggers, unit.state === undefined);
      if (!restarted && unit.state === 'running' && old?.state !== 'running') {
        this.push('start', unitStep('start-unit', name, 'should run'));
      }
    }
  }

  /** Restart or reload for the strongest trigger; returns whether the unit was (re)started. */
  private runtimeChange(name: string, triggers: Trigger[], ifRunning: boolean): boolean {
    if (triggers.length === 0) return false;
    let action: DisruptionAction = 'None';
    for (const t of triggers) {
      action = strongerAction(action, t.action);
      this.globalEffect(t.action, `${name}: ${t.reason}`);
    }
    const reason = [...new Set(triggers.map((t) => t.reason))].join('; ');
    if (action === 'Restart' || action === 'Drain') {
      const phase = name === this.selfUnit ? 'self' : 'restart';
      this.push(phase, { kind: 'restart-unit', id: `restart-unit:${name}`, name, ifRunning, reason });
      return true;
    }
    if (action === 'Reload') {
      this.push('restart', { kind: 'reload-unit', id: `reload-unit:${name}`, name, ifRunning, reason });
    }
    return false;
  }
}

/** The plan from the last applied config (undefined: none known) to the desired one. */
export function plan(
  lastApplied: PlanInput | undefined,
  desired: PlanInput,
  options: PlanOptions = {},
): Plan {
  return new PlanBuilder(lastApplied?.config, desired.config, options).build();
}
