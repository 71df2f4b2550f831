// Where `nodeherd up` keeps everything between runs, and the lock that stops two runs sharing it:
// two control planes on one SQLite file, or two agents on one node's journal, would corrupt both.

import { constants } from 'node:fs';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { processAlive } from '../util/process-alive.ts';

export class StateDirectory {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** The embedded API server's data dir (state.db, pki/, the admin kubeconfig). */
  get apiserver(): string {
    return join(this.root, 'apiserver');
  }

  get controllerKubeconfig(): string {
    return join(this.root, 'controller.kubeconfig');
  }

  /** One directory per simulated node: its agent's state, its files, its units, its kubeconfig. */
  get nodes(): string {
    return join(this.root, 'nodes');
  }

  node(name: string): string {
    return join(this.nodes, name);
  }

  /** Log lines of every component (the terminal shows the fleet, not logs). */
  get logFile(): string {
    return join(this.root, 'up.log');
  }

  get lockFile(): string {
    return join(this.root, 'up.lock');
  }

  /** Creates the directory and takes the lock; fails clearly when another live run holds it. */
  async lock(): Promise<() => Promise<void>> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    for (;;) {
      try {
        const handle = await open(
          this.lockFile,
          constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY,
          0o600,
        );
        await handle.writeFile(`${process.pid}\n`);
        await handle.close();
        return () => rm(this.lockFile, { force: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = Number((await readFile(this.lockFile, 'utf8').catch(() => '')).trim());
      if (holder > 0 && holder !== process.pid && processAlive(holder)) {
        throw new Error(
          `--state-dir ${this.root} is in use by another nodeherd up (pid ${holder}); stop it or choose another --state-dir`,
        );
      }
      // Left behind by a run that was killed: take it over.
      await rm(this.lockFile, { force: true });
    }
  }
}
