// What settling a pool's NodeConfigs before rendering costs (issue 33): the real rollout controller in
// this process against the embedded API server, once with settling off (quiet 0, bound 0: rendering
// on the first event, as before) and once with the defaults. Timed from just before the last NodeConfig
// write to the watch event of the pool targeting the revision of the whole change.
//
// Figures:
// - added latency of a single-config change (p50 with defaults − p50 with settling off); target ≤ the
//   quiet period + 100 ms.
// - added latency of a burst of BURST configs written back to back (as `kubectl apply -f` does), from
//   the last write; target ≤ the quiet period + 100 ms.
// - revisions rendered per burst with the defaults (one, the whole change; settling off renders
//   subsets); target ≤ 1.
//
// Run: node bench/render-settle.bench.ts   (RENDER_SETTLE_SAMPLES, default 20; RENDER_SETTLE_BURST, 5)

import type { NodeConfigPool, NodeConfigRevision, NodeConfigSpec } from '../src/api/types.ts';
import { DEFAULT_RENDER_SETTLE, type RenderSettleOptions } from '../src/controller/configs/config-settle.ts';
import { RolloutController } from '../src/controller/rollout-controller.ts';
import { Informer } from '../src/kube/informer.ts';
import { KubeClient } from '../src/kube/kube-client.ts';
import { revisionNameFor } from '../test/support/cluster-harness.ts';
import { startLocalApiServer } from '../test/support/local-apiserver.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const SAMPLES = benchNumber('RENDER_SETTLE_SAMPLES', 20, 6);
const BURST = benchNumber('RENDER_SETTLE_BURST', 5, 3);
const GROUP = '/apis/nodeherd.io/v1alpha1';

const api = await startLocalApiServer();
const admin = new KubeClient(api.kubeConfig());

function spec(i: number, value: string): NodeConfigSpec {
  return {
    files: [{ path: `/etc/nodeherd-bench/settle-${i}.conf`, content: { inline: { data: `${value}\n` } } }],
  };
}

async function putConfig(name: string, label: string, s: NodeConfigSpec): Promise<void> {
  const path = `${GROUP}/nodeconfigs/${name}`;
  try {
    await admin.patch(path, { spec: s }, 'merge');
  } catch {
    await admin.create(`${GROUP}/nodeconfigs`, {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfig',
      metadata: { name, labels: { bench: label } },
      spec: s,
    });
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

interface ModeResult {
  single: number[];
  burst: number[];
  revisionsPerBurst: number[];
}

async function measure(mode: string, settle: RenderSettleOptions): Promise<ModeResult> {
  const controller = new RolloutController({ kubeConfig: api.kubeConfig(), renderSettle: settle });
  await controller.start();
  const pools = new Informer<NodeConfigPool>(admin, { path: `${GROUP}/nodeconfigpools` });
  const revisions = new Informer<NodeConfigRevision>(admin, { path: `${GROUP}/nodeconfigrevisions` });
  pools.start();
  revisions.start();
  await Promise.all([pools.waitForSync(), revisions.waitForSync()]);
  const pool = `settle-${mode}`;
  // Revisions created (pruning deletes old ones, so the list's length would not do).
  let created = 0;
  revisions.on((type, r) => {
    if (type === 'add' && r.spec.pool === pool) created++;
  });
  const revisionCount = () => created;
  /** Resolves at the event of the pool targeting a revision other than `from`, with the time. */
  const nextTarget = (from: string | undefined) =>
    new Promise<number>((resolve) => {
      const check = (p: NodeConfigPool) => {
        if (p.metadata.name === pool && p.status?.targetRevision && p.status.targetRevision !== from) {
          resolved = true;
          resolve(performance.now());
        }
      };
      let resolved = false;
      pools.on((_type, p) => {
        if (!resolved) check(p);
      });
      const now = pools.get(pool);
      if (now) check(now);
    });
  const target = () => pools.get(pool)?.status?.targetRevision;
  /** Resolves at the event of the pool targeting `revision`, with the time. */
  const targetIs = (revision: string) =>
    new Promise<number>((resolve) => {
      let resolved = false;
      pools.on((_type, p) => {
        if (!resolved && p.metadata.name === pool && p.status?.targetRevision === revision) {
          resolved = true;
          resolve(performance.now());
        }
      });
    });

  for (let i = 0; i < BURST; i++) await putConfig(`${pool}-${i}`, pool, spec(i, 'v0'));
  const first = nextTarget(undefined);
  await admin.create(`${GROUP}/nodeconfigpools`, {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfigPool',
    metadata: { name: pool },
    spec: {
      nodeSelector: { matchLabels: { bench: pool } },
      configSelector: { matchLabels: { bench: pool } },
    },
  });
  await first;

  const result: ModeResult = { single: [], burst: [], revisionsPerBurst: [] };
  for (let s = 0; s < SAMPLES; s++) {
    // One NodeConfig changes.
    const next = nextTarget(target());
    const t0 = performance.now();
    await putConfig(`${pool}-0`, pool, spec(0, `single ${s}`));
    result.single.push((await next) - t0);
    // All of them, one write after another: timed from the last write to the whole change targeted.
    const values = Array.from({ length: BURST }, (_, i) => spec(i, `burst ${s} ${i}`));
    const whole = revisionNameFor(pool, Object.fromEntries(values.map((v, i) => [`${pool}-${i}`, v])));
    const revisionsBefore = revisionCount();
    const targeted = targetIs(whole);
    let last = 0;
    for (let i = 0; i < BURST; i++) {
      if (i === BURST - 1) last = performance.now();
      await putConfig(`${pool}-${i}`, pool, values[i]!);
    }
    result.burst.push((await targeted) - last);
    // Let the revision informer catch up before counting.
    await new Promise((resolve) => setTimeout(resolve, 50));
    result.revisionsPerBurst.push(revisionCount() - revisionsBefore);
  }
  await pools.stop();
  await revisions.stop();
  await controller.stop();
  return result;
}

const off = await measure('off', { quietMs: 0, maxDelayMs: 0 });
const on = await measure('default', DEFAULT_RENDER_SETTLE);
const quiet = DEFAULT_RENDER_SETTLE.quietMs;
const addedSingle = median(on.single) - median(off.single);
const addedBurst = median(on.burst) - median(off.burst);
console.log(
  `settling off: single change → target p50 ${median(off.single).toFixed(0)} ms; burst of ${BURST} (from the last write) p50 ${median(off.burst).toFixed(0)} ms, revisions per burst ${median(off.revisionsPerBurst)} (max ${Math.max(...off.revisionsPerBurst)})`,
);
console.log(
  `defaults (quiet ${quiet} ms, bound ${DEFAULT_RENDER_SETTLE.maxDelayMs} ms): single p50 ${median(on.single).toFixed(0)} ms; burst p50 ${median(on.burst).toFixed(0)} ms, revisions per burst ${median(on.revisionsPerBurst)} (max ${Math.max(...on.revisionsPerBurst)})`,
);
reportFigure({
  bench: 'render-settle',
  name: 'single NodeConfig change, latency added by settling (p50)',
  value: Math.round(addedSingle),
  unit: 'ms',
  target: { op: '<=', value: quiet + 100 },
  note: `${SAMPLES} samples; quiet period ${quiet} ms`,
});
reportFigure({
  bench: 'render-settle',
  name: `burst of ${BURST} NodeConfig writes, latency added after the last (p50)`,
  value: Math.round(addedBurst),
  unit: 'ms',
  target: { op: '<=', value: quiet + 100 },
  note: `${SAMPLES} samples; quiet period ${quiet} ms`,
});
reportFigure({
  bench: 'render-settle',
  name: `revisions rendered per burst of ${BURST} writes (max)`,
  value: Math.max(...on.revisionsPerBurst),
  unit: 'revisions',
  target: { op: '<=', value: 1 },
  note: `settling off: up to ${Math.max(...off.revisionsPerBurst)}`,
});
admin.close();
await api.stop();
