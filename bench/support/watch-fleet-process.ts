// A watch fleet (watch-fleet.ts) as a child process of a bench, with its file limit raised, and the
// one-reply-per-command exchange over IPC the API server benches use.

import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { withFileLimit } from './apiserver-process.ts';
import type { FleetCommand, FleetReply } from './watch-fleet.ts';

export interface Fleet {
  child: ChildProcess;
  ask(command: FleetCommand): Promise<FleetReply>;
}

export function startFleet(): Fleet {
  const child = spawn(
    '/bin/sh',
    withFileLimit([process.execPath, join(import.meta.dirname, 'watch-fleet.ts')]),
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const waiting: ((r: FleetReply) => void)[] = [];
  child.on('message', (r: FleetReply) => waiting.shift()?.(r));
  return {
    child,
    ask(command) {
      return new Promise((resolve) => {
        if (command.cmd !== 'exit') waiting.push(resolve);
        child.send(command);
        if (command.cmd === 'exit') resolve({ type: 'opened', ok: 0, failed: 0, ms: 0 });
      });
    },
  };
}
