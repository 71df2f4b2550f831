// Translates one plan action into executor calls. Every action is idempotent (writing a file again,
// restarting a unit again), which is what lets the journal mark an action done only after it ran:
// a crash in between runs it once more, never skips it. Reboot and the agent's own restart are not
// here: they end the process and are handled by the apply runner.

import { indexRefreshManager, managerOf, type PackageManagerName } from '../../api/packages/registry.ts';
import type { Action } from '../../plan/types.ts';
import type { FileExecutor, PackageExecutor, SystemdExecutor } from '../executors/types.ts';
import type { AgentMetrics } from '../metrics/agent-metrics.ts';
import { fileContent, type SecretSource } from './file-content.ts';
import type { SecretDigests } from './secret-digests.ts';

export interface ActionExecutors {
  files: FileExecutor;
  systemd: SystemdExecutor;
  packages: PackageExecutor;
  secrets?: SecretSource;
  /** Digests of the Secret values written, in the agent's root-only state (drift compares against them). */
  secretDigests?: SecretDigests;
}

/** What an executed action did that metrics count. */
export type ActionEffect = 'restarted' | 'reloaded' | 'skipped-not-running' | undefined;

/**
 * The systemd call of each unit action that needs nothing but the unit's name. For enable-unit the plan
 * asks for `systemctl reenable` when the unit file changed; the executor offers enable, which creates
 * the links of the current [Install] section (stale ones stay).
 */
const SYSTEMD_VERB = {
  'enable-unit': 'enable',
  'disable-unit': 'disable',
  'stop-unit': 'stop',
  'start-unit': 'start',
} as const;

export async function executeAction(action: Action, executors: ActionExecutors): Promise<ActionEffect> {
  const { files, systemd, packages } = executors;
  switch (action.kind) {
    case 'write-file': {
      const content = await fileContent(action.file, executors.secrets, executors.secretDigests);
      await files.write(action.file.path, content, {
        mode: action.file.mode,
        owner: action.file.owner,
        group: action.file.group,
      });
      return undefined;
    }
    case 'remove-file':
      await files.remove(action.path);
      return undefined;
    case 'write-unit':
      await systemd.writeUnit(action.name, action.content);
      return undefined;
    case 'remove-unit':
      await systemd.removeUnit(action.name);
      return undefined;
    case 'write-dropin':
      await systemd.writeDropIn(action.unit, action.name, action.content);
      return undefined;
    case 'remove-dropin':
      await systemd.removeDropIn(action.unit, action.name);
      return undefined;
    case 'daemon-reload':
      await systemd.daemonReload();
      return undefined;
    case 'enable-unit':
    case 'disable-unit':
    case 'stop-unit':
    case 'start-unit':
      await systemd[SYSTEMD_VERB[action.kind]](action.name);
      return undefined;
    case 'restart-unit':
      // ifRunning is systemctl try-restart: a unit whose state nodeherd does not manage stays down.
      if (action.ifRunning && !(await systemd.isActive(action.name))) return 'skipped-not-running';
      await systemd.restart(action.name);
      return 'restarted';
    case 'reload-unit':
      if (action.ifRunning && !(await systemd.isActive(action.name))) return 'skipped-not-running';
      await systemd.reload(action.name);
      return 'reloaded';
    case 'add-repository':
      await packagesOf(packages, managerOf(action.repository)).addRepository(action.repository);
      return undefined;
    case 'remove-repository':
      await packagesOf(packages, managerOf(action)).removeRepository(action.name);
      return undefined;
    case 'install-package': {
      const manager = packagesOf(packages, managerOf(action));
      await manager.install(action.name, action.version);
      // A pinned package is held, so nothing but nodeherd moves it (unattended upgrades included).
      if (action.version !== undefined) await manager.hold(action.name);
      return undefined;
    }
    case 'remove-package':
      await packagesOf(packages, managerOf(action)).remove(action.name);
      return undefined;
    case 'release-package':
      await packagesOf(packages, managerOf(action)).release(action.name);
      return undefined;
    case 'reboot':
      throw new Error('reboot is executed by the apply runner, not as an ordinary action');
    default: {
      // What is left is a package manager's index refresh.
      const manager = indexRefreshManager(action.kind);
      if (manager === undefined) throw new Error(`unknown action ${JSON.stringify(action.kind)}`);
      await packagesOf(packages, manager).update();
      return undefined;
    }
  }
}

/** The node's package executor, if it is the manager the config names (a node has one manager). */
function packagesOf(packages: PackageExecutor, manager: PackageManagerName): PackageExecutor {
  if (packages.manager !== manager) {
    throw new Error(`this node's package manager is ${packages.manager}; the config asks for ${manager}`);
  }
  return packages;
}

/** executeAction, counted in the agent's metrics (actions by result, unit restarts and reloads). */
export async function executeCountedAction(
  action: Action,
  executors: ActionExecutors,
  metrics: AgentMetrics,
): Promise<void> {
  try {
    const effect = await executeAction(action, executors);
    if (effect === 'restarted' && action.kind === 'restart-unit')
      metrics.unitRestarts.inc({ unit: action.name });
    if (effect === 'reloaded' && action.kind === 'reload-unit')
      metrics.unitReloads.inc({ unit: action.name });
    metrics.actions.inc({ kind: action.kind, result: 'success' });
  } catch (error) {
    metrics.actions.inc({ kind: action.kind, result: 'failure' });
    throw error;
  }
}
