// The systemd of a simulated node, kept across runs of `nodeherd up`: the units and drop-ins the
// agent wrote, whether they are enabled, and whether they run. Real systemd keeps unit files on disk
// and starts enabled units at boot; the simulated one lives in memory, so after each change the
// units are written to a JSON file, and the next run installs them again before the node boots.
// The kubelet unit is the node's own (its process is the simulated kubelet): only its drop-ins
// are restored, and the kubelet starts with the node as it would at boot.

import { readFile } from 'node:fs/promises';
import type { SystemdExecutor, UnitStatus } from '../agent/executors/types.ts';
import { writeFileAtomic } from '../util/atomic-write.ts';
import type { KubeletSystemd } from './kubelet-systemd.ts';

interface StoredUnit {
  name: string;
  /** Written by the agent (/etc/systemd/system); absent for vendor units. */
  content?: string;
  dropIns: Record<string, string>;
  enabled: boolean;
  running: boolean;
}

export class DurableNodeSystemd implements SystemdExecutor {
  private readonly systemd: KubeletSystemd;
  private readonly snapshotPath: string;
  private saving: Promise<void> = Promise.resolve();

  private constructor(systemd: KubeletSystemd, snapshotPath: string) {
    this.systemd = systemd;
    this.snapshotPath = snapshotPath;
  }

  /** Installs the units of the last run into `systemd` (before the node boots), and keeps saving them. */
  static async restore(systemd: KubeletSystemd, snapshotPath: string): Promise<DurableNodeSystemd> {
    let stored: StoredUnit[] = [];
    try {
      stored = JSON.parse(await readFile(snapshotPath, 'utf8')) as StoredUnit[];
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new Error(
          `cannot read the simulated node's units from ${snapshotPath}: ${(error as Error).message}`,
        );
      }
    }
    for (const unit of stored) {
      if (unit.content !== undefined) await systemd.writeUnit(unit.name, unit.content);
      for (const [dropIn, content] of Object.entries(unit.dropIns)) {
        await systemd.writeDropIn(unit.name, dropIn, content);
      }
    }
    await systemd.daemonReload();
    for (const unit of stored) {
      if (unit.name === systemd.kubeletUnit || systemd.unit(unit.name)?.loaded === undefined) continue;
      if (unit.enabled) await systemd.enable(unit.name);
      if (unit.running) await systemd.start(unit.name);
    }
    return new DurableNodeSystemd(systemd, snapshotPath);
  }

  writeUnit(name: string, content: string): Promise<void> {
    return this.changed(this.systemd.writeUnit(name, content));
  }
  removeUnit(name: string): Promise<void> {
    return this.changed(this.systemd.removeUnit(name));
  }
  writeDropIn(unit: string, dropIn: string, content: string): Promise<void> {
    return this.changed(this.systemd.writeDropIn(unit, dropIn, content));
  }
  removeDropIn(unit: string, dropIn: string): Promise<void> {
    return this.changed(this.systemd.removeDropIn(unit, dropIn));
  }
  unitFileState(name: string): Promise<string> {
    return this.systemd.unitFileState(name);
  }
  readUnit(name: string): Promise<string | undefined> {
    return this.systemd.readUnit(name);
  }
  readDropIn(unit: string, dropIn: string): Promise<string | undefined> {
    return this.systemd.readDropIn(unit, dropIn);
  }
  daemonReload(): Promise<void> {
    return this.systemd.daemonReload();
  }
  enable(name: string): Promise<void> {
    return this.changed(this.systemd.enable(name));
  }
  disable(name: string): Promise<void> {
    return this.changed(this.systemd.disable(name));
  }
  start(name: string): Promise<void> {
    return this.changed(this.systemd.start(name));
  }
  stop(name: string): Promise<void> {
    return this.changed(this.systemd.stop(name));
  }
  restart(name: string): Promise<void> {
    return this.changed(this.systemd.restart(name));
  }
  reload(name: string): Promise<void> {
    return this.systemd.reload(name);
  }
  isActive(name: string): Promise<boolean> {
    return this.systemd.isActive(name);
  }
  isFailed(name: string): Promise<boolean> {
    return this.systemd.isFailed(name);
  }
  status(name: string): Promise<UnitStatus> {
    return this.systemd.status(name);
  }

  private async changed(operation: Promise<void>): Promise<void> {
    await operation;
    await this.save();
  }

  private save(): Promise<void> {
    const next = this.saving.then(async () => {
      const stored: StoredUnit[] = [];
      for (const name of this.systemd.unitNames()) {
        const unit = this.systemd.unit(name);
        if (!unit) continue;
        if (
          unit.content === undefined &&
          Object.keys(unit.dropIns).length === 0 &&
          name !== this.systemd.kubeletUnit
        )
          continue;
        stored.push({
          name,
          ...(unit.content !== undefined ? { content: unit.content } : {}),
          dropIns: unit.dropIns,
          enabled: unit.enabled,
          running: unit.activeState === 'active',
        });
      }
      await writeFileAtomic(this.snapshotPath, `${JSON.stringify(stored)}\n`, { mode: 0o600 });
    });
    this.saving = next.catch(() => {});
    return next;
  }
}
