// `nodeherd status [pool] [--watch] [-o json]`: every pool's rollout at a glance; --watch redraws on
// changes (throttled), with progress bars on a terminal.

import { Command, InvalidArgumentError, Option } from 'commander';
import { CliError, describeApiError } from '../cli-error.ts';
import type { GroupBy } from '../dashboard/timeline.ts';
import { addKubeOptions, connect, type KubeOptions } from '../kube-options.ts';
import { addOutputOption, type OutputFormat, terminalWidth, useColor } from '../output-options.ts';
import { palette } from '../text-table.ts';
import { renderNodeDetail } from './failure-view.ts';
import type { FleetStatus } from './fleet-status.ts';
import { fetchNodeDetail } from './node-detail.ts';
import { fetchTimelines } from './status-timeline.ts';
import { fetchFleetStatus, renderFleetStatus } from './status-view.ts';
import { watchFleetStatus } from './status-watch.ts';
import { renderTimelineText } from './timeline-text.ts';

interface StatusOptions extends KubeOptions {
  watch?: boolean;
  output: OutputFormat;
  color?: boolean;
  interval: string;
  timeline?: boolean;
  groupBy: GroupBy;
  maxRows: number;
  node?: string;
}

function rowCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1)
    throw new InvalidArgumentError('must be a whole number of rows, 1 or more');
  return n;
}

const CLEAR_SCREEN = '\u001b[H\u001b[2J';

export function statusCommand(): Command {
  const command = new Command('status')
    .description(
      'show the rollout status of every NodeConfigPool (or one): strategy, target revision, nodes per state and revision, conditions',
    )
    .argument('[pool]', 'only this pool')
    .option('-w, --watch', 'keep watching and redraw on changes (Ctrl-C ends)')
    .option('--interval <ms>', 'with --watch: least time between two redraws', '500')
    .option(
      '--timeline',
      "each pool's rollout over time: a row per node (or group of nodes), a character per moment for its state",
    )
    .addOption(
      new Option(
        '--group-by <rows>',
        'with --timeline: a row per node, per zone, per batch of nodes in update order',
      )
        .choices(['auto', 'node', 'zone', 'batch'])
        .default('auto'),
    )
    .option('--max-rows <n>', 'with --timeline: group nodes when a pool has more (auto)', rowCount, 40)
    .option(
      '--node <node>',
      "with a pool: one of its nodes — why it failed in its own words (its agent's excerpt of the unit's journal), its recorded episodes and Events",
    );
  addOutputOption(command);
  addKubeOptions(command);
  return command.action(async (pool: string | undefined, opts: StatusOptions) => {
    if (opts.timeline && opts.watch) {
      throw new CliError('--timeline and --watch: a live timeline is the dashboard (nodeherd dashboard)');
    }
    if (opts.node !== undefined && (pool === undefined || opts.timeline || opts.watch)) {
      throw new CliError(
        pool === undefined
          ? '--node needs the pool: nodeherd status <pool> --node <node>'
          : '--node shows one node once: not with --timeline or --watch',
      );
    }
    const { client, context } = await connect(opts);
    if (opts.node !== undefined && pool !== undefined) {
      try {
        const detail = await fetchNodeDetail(client, pool, opts.node);
        process.stdout.write(
          opts.output === 'json'
            ? `${JSON.stringify(detail, null, 2)}\n`
            : renderNodeDetail(detail, palette(useColor(opts))),
        );
      } catch (error) {
        throw new CliError(describeApiError(error, context));
      } finally {
        client.close();
      }
      return;
    }
    if (opts.timeline) {
      try {
        const timelines = await fetchTimelines(client, pool);
        process.stdout.write(
          opts.output === 'json'
            ? `${JSON.stringify({ timelines }, null, 2)}\n`
            : timelines
                .map((t) =>
                  renderTimelineText(t, {
                    color: useColor(opts),
                    width: terminalWidth(),
                    groupBy: opts.groupBy,
                    maxRows: opts.maxRows,
                  }),
                )
                .join('\n') || 'no NodeConfigPools\n',
        );
      } catch (error) {
        throw new CliError(describeApiError(error, context));
      } finally {
        client.close();
      }
      return;
    }
    const render = (status: FleetStatus, bars: boolean) =>
      opts.output === 'json'
        ? `${JSON.stringify(status, null, opts.watch ? undefined : 2)}\n`
        : renderFleetStatus(status, {
            color: useColor(opts),
            width: terminalWidth(),
            bars,
            detail: pool !== undefined,
          });
    let first: FleetStatus;
    try {
      first = await fetchFleetStatus(client, pool);
    } catch (error) {
      client.close();
      throw new CliError(describeApiError(error, context));
    }
    if (!opts.watch) {
      process.stdout.write(render(first, false));
      client.close();
      return;
    }
    const throttleMs = Number(opts.interval);
    if (!Number.isFinite(throttleMs) || throttleMs < 0) {
      client.close();
      throw new CliError(`--interval: ${JSON.stringify(opts.interval)} is not a number of milliseconds`);
    }
    const tty = process.stdout.isTTY === true && opts.output === 'text';
    // The watch's first sync and changes that move no count (a node's heartbeat) would repeat the
    // frame: a pipe would fill with copies, a terminal flicker.
    let shown: string | undefined;
    const draw = (status: FleetStatus) => {
      // The ETA counts down with the clock: it is redrawn with the next change, not for itself.
      const content = JSON.stringify({
        ...status,
        observedAt: undefined,
        pools: status.pools.map((p) => ({ ...p, eta: undefined })),
      });
      if (content === shown) return;
      shown = content;
      // On a terminal the frame replaces the last; in a pipe frames follow each other.
      process.stdout.write(
        tty
          ? CLEAR_SCREEN + render(status, true)
          : `${render(status, true)}${opts.output === 'text' ? '\n' : ''}`,
      );
    };
    draw(first);
    const watch = watchFleetStatus(client, draw, { ...(pool !== undefined ? { pool } : {}), throttleMs });
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await watch.stop();
    client.close();
  });
}
