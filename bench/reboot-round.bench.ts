// A sentinel-triggered reboot round of a simulated pool (issue 34.1): the OS asks every node of a
// RollingUpdate pool with reboots.osRequested.policy Reboot for a reboot at once (Debian's sentinel),
// and the controller reboots them as a rollout (drain, request, back Ready, soak, next). Figures: the
// round's wall time, reboots per node, and the round beside kured's model (one node at a time, each
// node looking for the lock once per period: N × period for N nodes).
//
// Environment:
//   REBOOT_BENCH_NODES=100            nodes in the pool
//   REBOOT_BENCH_MAX_UNAVAILABLE=10%  its maxUnavailable
//   REBOOT_BENCH_DOWN_MS=2000         how long a simulated reboot keeps a machine down
//   REBOOT_BENCH_KURED_PERIOD_S=3600  kured's --period (its default is 1 h)

import assert from 'node:assert/strict';
import { REBOOT_REQUIRED_CONDITION } from '../src/api/node-protocol.ts';
import { ClusterHarness, condition, eventually, kubeletConfig } from '../test/support/cluster-harness.ts';
import { benchNumber, benchSetting } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const NODES = benchNumber('REBOOT_BENCH_NODES', 100, 20);
const MAX_UNAVAILABLE = benchSetting('REBOOT_BENCH_MAX_UNAVAILABLE', '10%', '10%');
const DOWN_MS = benchNumber('REBOOT_BENCH_DOWN_MS', 2_000, 500);
const KURED_PERIOD_S = benchNumber('REBOOT_BENCH_KURED_PERIOD_S', 3_600, 3_600);
const POOL = 'bench-reboots';

async function main(): Promise<void> {
  const h = await ClusterHarness.start({
    nodeIdentities: false,
    graceMs: 4_000,
    fleet: { rebootDownMs: DOWN_MS },
    agents: { agent: { reboots: { intervalMs: 500 } } },
  });
  try {
    await h.startController();
    await h.fleet.add(NODES, { labels: { pool: POOL } });
    await h.applyConfig(POOL, kubeletConfig('a'), { pool: POOL });
    await h.createPool(POOL, {
      nodeSelector: { matchLabels: { pool: POOL } },
      configSelector: { matchLabels: { pool: POOL } },
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: MAX_UNAVAILABLE, progressDeadlineSeconds: 300 },
      },
      reboots: { osRequested: { policy: 'Reboot' } },
    } as never);
    const complete = async () => {
      const p = await h.getPool(POOL);
      return condition(p, 'Complete')?.status === 'True' ? p : undefined;
    };
    await eventually(
      'bootstrapped',
      async () => ((await complete())?.status?.updated === NODES ? true : undefined),
      300_000,
    );
    process.stderr.write(`bootstrapped ${NODES} nodes\n`);
    const names = [...h.fleet.names()];
    const before = new Map(names.map((n) => [n, h.fleet.node(n)!.host.reboots]));

    const t0 = performance.now();
    await Promise.all(names.map((n) => h.fleet.requireReboot(n)));
    await eventually(
      'the round begins',
      async () => {
        const p = await h.getPool(POOL);
        return String(p.status?.history?.at(-1)?.message ?? '').startsWith('reboot round') ? true : undefined;
      },
      120_000,
    );
    const tBegun = performance.now();
    process.stderr.write(`round begun after ${((tBegun - t0) / 1000).toFixed(1)} s\n`);
    const done = await eventually(
      'the round completes',
      async () => {
        const p = await complete();
        const last = p?.status?.history?.at(-1);
        return last?.result === 'Complete' && String(last.message ?? '').startsWith('reboot round')
          ? p
          : undefined;
      },
      3_600_000,
      1_000,
    );
    const wallS = (performance.now() - t0) / 1000;
    const roundS = (performance.now() - tBegun) / 1000;
    const reboots = names.map((n) => h.fleet.node(n)!.host.reboots - before.get(n)!);
    const stillAsking = (await h.nodes(`pool=${POOL}`)).filter((n) =>
      n.status?.conditions?.some((c) => c.type === REBOOT_REQUIRED_CONDITION && c.status === 'True'),
    );
    assert.equal(stillAsking.length, 0);
    assert.equal(done.status?.nodes, NODES);

    const limit = MAX_UNAVAILABLE.endsWith('%')
      ? Math.max(1, Math.floor((Number.parseInt(MAX_UNAVAILABLE, 10) * NODES) / 100))
      : Number(MAX_UNAVAILABLE);
    const batches = Math.ceil(NODES / limit);
    const sizes = `${NODES} simulated nodes, maxUnavailable ${MAX_UNAVAILABLE} (${limit}), reboot down ${DOWN_MS} ms, node ${process.version}`;
    reportFigure({
      bench: 'reboot-round',
      name: 'round wall time (sentinel raised → Complete)',
      value: wallS,
      unit: 's',
      note: sizes,
    });
    reportFigure({
      bench: 'reboot-round',
      name: 'round wall time (round begun → Complete)',
      value: roundS,
      unit: 's',
      note: sizes,
    });
    reportFigure({
      bench: 'reboot-round',
      name: 'time per batch (round ÷ batches)',
      value: roundS / batches,
      unit: 's',
      note: `${batches} batches; ${sizes}`,
    });
    reportFigure({
      bench: 'reboot-round',
      name: 'reboots per node (max)',
      value: Math.max(...reboots),
      unit: 'reboots',
      target: { op: '<=', value: 1 },
      note: sizes,
    });
    reportFigure({
      bench: 'reboot-round',
      name: 'reboots per node (min)',
      value: Math.min(...reboots),
      unit: 'reboots',
      target: { op: '>=', value: 1 },
      note: sizes,
    });
    // kured: one lock (concurrency 1); each node looks for a reboot and the lock once per period, so a
    // pool whose nodes all ask at once reboots one node per period: N × period, whatever a reboot takes.
    const kuredS = NODES * KURED_PERIOD_S;
    reportFigure({
      bench: 'reboot-round',
      name: "kured's model (concurrency 1, period 1 h): N × period",
      value: kuredS / 3600,
      unit: 'h',
      note: `${NODES} nodes × ${KURED_PERIOD_S} s; 1 reboot per node`,
    });
    process.stdout.write(
      `reboot round of ${NODES} nodes: ${roundS.toFixed(1)} s from its start (${wallS.toFixed(1)} s from the sentinel), ${batches} batches of ${limit}, reboots per node ${Math.min(...reboots)}–${Math.max(...reboots)}; kured's model ${(kuredS / 3600).toFixed(0)} h\n`,
    );
  } finally {
    await h.stop();
  }
}

await main();
