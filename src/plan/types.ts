// The plan: what a node must do to get from its last applied revision to the desired one. A plain
// value, so the agent can execute and journal it, the controller can read its disruption, and the
// CLI can print it.

import type { IndexRefreshKind, PackageManagerName } from '../api/packages/registry.ts';
import type { RenderedFile, RenderedRepository } from '../api/types.ts';

/** How disruptive a plan is, least to most. Drain and Reboot mean: drain the node first. */
export const DISRUPTION_LEVELS = ['None', 'Reload', 'Restart', 'Drain', 'Reboot'] as const;
export type Disruption = (typeof DISRUPTION_LEVELS)[number];

interface ActionBase {
  /** Stable within a plan, e.g. `write-file:/etc/foo`: the agent's crash journal records completed ids. */
  id: string;
  /** Why, for humans: "added", "content changed", "drop-in 10-a.conf changed". */
  reason: string;
}

export interface AddRepositoryAction extends ActionBase {
  kind: 'add-repository';
  repository: RenderedRepository;
}
export interface RemoveRepositoryAction extends ActionBase {
  kind: 'remove-repository';
  name: string;
  /** The repository's manager when it named one (unset: the default manager). */
  manager?: PackageManagerName;
}
/** Refreshes one package manager's index; its kind and id name the manager's refresh (see src/api/packages). */
export interface IndexRefreshAction extends ActionBase {
  kind: IndexRefreshKind;
}
export interface InstallPackageAction extends ActionBase {
  kind: 'install-package';
  name: string;
  version?: string;
  /** The package's manager when it named one (unset: the default manager). */
  manager?: PackageManagerName;
}
export interface RemovePackageAction extends ActionBase {
  kind: 'remove-package';
  name: string;
  manager?: PackageManagerName;
}
/**
 * Releases the hold on a package whose pin went, so the package manager may upgrade it again;
 * the package itself is left as it is. (A pinned install holds the package; a removal releases it.)
 */
export interface ReleasePackageAction extends ActionBase {
  kind: 'release-package';
  name: string;
  manager?: PackageManagerName;
}
export interface WriteFileAction extends ActionBase {
  kind: 'write-file';
  file: RenderedFile;
}
export interface RemoveFileAction extends ActionBase {
  kind: 'remove-file';
  path: string;
}
export interface WriteUnitAction extends ActionBase {
  kind: 'write-unit';
  name: string;
  content: string;
}
/** Removes the unit file nodeherd wrote (never a unit it did not create). */
export interface RemoveUnitAction extends ActionBase {
  kind: 'remove-unit';
  name: string;
}
export interface WriteDropInAction extends ActionBase {
  kind: 'write-dropin';
  unit: string;
  name: string;
  content: string;
}
export interface RemoveDropInAction extends ActionBase {
  kind: 'remove-dropin';
  unit: string;
  name: string;
}
export interface DaemonReloadAction extends ActionBase {
  kind: 'daemon-reload';
}
/** Makes the unit's [Install] links match its current file (systemctl reenable). */
export interface EnableUnitAction extends ActionBase {
  kind: 'enable-unit';
  name: string;
}
export interface DisableUnitAction extends ActionBase {
  kind: 'disable-unit';
  name: string;
}
export interface StopUnitAction extends ActionBase {
  kind: 'stop-unit';
  name: string;
}
export interface StartUnitAction extends ActionBase {
  kind: 'start-unit';
  name: string;
}
export interface RestartUnitAction extends ActionBase {
  kind: 'restart-unit';
  name: string;
  /** Only if it runs (systemctl try-restart): for units whose state nodeherd does not manage. */
  ifRunning: boolean;
}
export interface ReloadUnitAction extends ActionBase {
  kind: 'reload-unit';
  name: string;
  /** Only if it runs: for units whose state nodeherd does not manage. */
  ifRunning: boolean;
}
export interface RebootAction extends ActionBase {
  kind: 'reboot';
}

export type Action =
  | AddRepositoryAction
  | RemoveRepositoryAction
  | IndexRefreshAction
  | InstallPackageAction
  | RemovePackageAction
  | ReleasePackageAction
  | WriteFileAction
  | RemoveFileAction
  | WriteUnitAction
  | RemoveUnitAction
  | WriteDropInAction
  | RemoveDropInAction
  | DaemonReloadAction
  | EnableUnitAction
  | DisableUnitAction
  | StopUnitAction
  | StartUnitAction
  | RestartUnitAction
  | ReloadUnitAction
  | RebootAction;

export type ActionKind = Action['kind'];

export interface ChangeSet {
  added: string[];
  changed: string[];
  removed: string[];
}

export interface Changes {
  files: ChangeSet;
  units: ChangeSet;
  /** removed: no longer managed (left installed); uninstalling is `state: absent`, under changed or added. */
  packages: ChangeSet;
  repositories: ChangeSet;
}

export interface Plan {
  /** In execution order. */
  actions: Action[];
  disruption: Disruption;
  /** One line, e.g. "2 files changed, 1 unit restarted (kubelet.service) — disruption: Restart". */
  summary: string;
  changes: Changes;
  /** True when there was no last-applied revision: everything counted as new. */
  initial: boolean;
  /** Things worth knowing that are not actions, e.g. a policy that had nothing to act on. */
  notes: string[];
}
