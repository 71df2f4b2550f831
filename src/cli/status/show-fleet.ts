// The live view of `nodeherd up`: the same status `nodeherd status` prints, kept current from
// watches. On a terminal it is redrawn in place (at most four times a second); anywhere else (a
// pipe, a log file) each pool gets one line whenever its summary changes, so the output reads as a
// history instead of a stream of screens.

import type { KubeClient } from '../../kube/kube-client.ts';
import { type FleetStatus, type PoolView, renderFleetStatus } from './status-view.ts';
import { watchFleetStatus } from './status-watch.ts';

const REDRAW_MS = 250;

export interface FleetView {
  stop(): void;
}

export function showFleet(client: KubeClient, out: NodeJS.WriteStream): FleetView {
  const draw = out.isTTY ? terminalDrawer(out) : lineWriter(out);
  const watch = watchFleetStatus(client, draw.update, { throttleMs: REDRAW_MS });
  watch.synced.catch((error: Error) => out.write(`live view unavailable: ${error.message}\n`));
  return {
    stop() {
      void watch.stop();
      draw.finish();
    },
  };
}

interface Drawer {
  update: (status: FleetStatus) => void;
  finish(): void;
}

function terminalDrawer(out: NodeJS.WriteStream): Drawer {
  let drawnLines = 0;
  let last: FleetStatus | undefined;
  const redraw = () => {
    if (!last) return;
    const text = renderFleetStatus(last, {
      color: !process.env.NO_COLOR,
      width: out.columns ?? 100,
      bars: true,
    });
    const footer = `\x1b[2mlive view, ${last.observedAt.slice(11, 19)} UTC · Ctrl-C stops the cluster\x1b[0m\n`;
    // Back to where the previous frame started, clear it, draw the new one.
    const up = drawnLines > 0 ? `\x1b[${drawnLines}F` : '';
    out.write(`${up}\x1b[J${text}${footer}`);
    drawnLines = (text + footer).split('\n').length - 1;
  };
  const onResize = () => redraw();
  out.on('resize', onResize);
  return {
    update(status) {
      last = status;
      redraw();
    },
    finish() {
      out.off('resize', onResize);
    },
  };
}

function lineWriter(out: NodeJS.WritableStream): Drawer {
  const lastLine = new Map<string, string>();
  return {
    update(status) {
      for (const pool of status.pools) {
        const line = summary(pool);
        if (lastLine.get(pool.name) === line) continue;
        lastLine.set(pool.name, line);
        out.write(`${status.observedAt.slice(11, 19)} ${line}\n`);
      }
    },
    finish() {},
  };
}

/** One line per pool: its target and where its nodes are. */
export function summary(pool: PoolView): string {
  const c = pool.counts;
  const target = pool.target
    ? `${pool.target.name}${pool.target.number !== undefined ? ` (revision ${pool.target.number})` : ''}`
    : 'no target yet';
  const conditions = pool.conditions
    .filter((condition) => condition.status === 'True')
    .map((condition) => condition.type)
    .join(',');
  return [
    `pool ${pool.name}${pool.paused ? ' PAUSED' : ''}: target ${target};`,
    `${pool.nodes} nodes, ${c.updated} updated, ${c.ready} ready, ${c.applying} applying,`,
    `${c.waiting} waiting, ${c.failed} failed, ${c.unavailable} unavailable`,
    conditions ? `[${conditions}]` : '',
  ]
    .filter(Boolean)
    .join(' ');
}
