// The metrics the alerting rules read (src/api/alert-rules.ts), scraped from a real controller's
// /metrics against the embedded API server: every metric a rule names has a series for a pool whose
// nodes show what the alerts watch (a node whose OS asks for a reboot, a drifted node, a held Serial
// slot, the pool's conditions), with the values the objects hold; a released slot, a deleted pool and
// a stopped controller drop their series, so no alert fires on for what is gone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ALERT_RULE_GROUPS } from '../../src/api/alert-rules.ts';
import {
  CONFIG_DRIFT_CONDITION,
  REBOOT_REQUIRED_CONDITION,
  SERIAL_LEASE_NAMESPACE,
  SERIAL_POOL_LABEL,
} from '../../src/api/node-protocol.ts';
import { MetricsServer } from '../../src/controller/metrics-server.ts';
import type { RolloutController } from '../../src/controller/rollout-controller.ts';
import { ClusterHarness, eventually, GROUP_PATH, kubeletConfig } from '../support/cluster-harness.ts';

const POOL = 'alerting';
const REBOOT_SINCE = '2026-01-02T03:04:05Z';
const SLOT_ACQUIRED = '2026-01-02T04:00:00.000000Z';
const LEASES = `/apis/coordination.k8s.io/v1/namespaces/${SERIAL_LEASE_NAMESPACE}/leases`;

/** The metric names a PromQL expression reads (Prometheus's own `up` aside). */
function metricNames(expr: string): string[] {
  const names = expr.match(/[a-zA-Z_:][a-zA-Z0-9_:]*(?=\s*(\{|\)|\s|$|==|>|<))/g) ?? [];
  const functions = new Set(['absent', 'sum', 'time', 'max', 'min', 'by', 'rate', 'up', 'vector']);
  return names.filter((n) => /_/.test(n) && !functions.has(n));
}

/** Sample lines of a text exposition: name → [labels text, value]. */
function samples(text: string): Map<string, { labels: string; value: number }[]> {
  const out = new Map<string, { labels: string; value: number }[]>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!m) continue;
    const list = out.get(m[1]!) ?? [];
    list.push({ labels: m[2] ?? '', value: Number(m[3]) });
    out.set(m[1]!, list);
  }
  return out;
}

describe('the controller exports every metric the alerting rules read', () => {
  let h: ClusterHarness;
  let controller: RolloutController;
  let server: MetricsServer;
  let url = '';
  before(async () => {
    h = await ClusterHarness.start({ graceMs: 5_000 });
    controller = await h.startController();
    server = new MetricsServer({
      address: '127.0.0.1:0',
      registry: controller.metrics.registry,
      ready: () => controller.ready,
    });
    url = await server.listen();
  });
  after(async () => {
    await server?.close();
    await h?.stop();
  });

  const scrape = async () => samples(await (await fetch(`${url}/metrics`)).text());

  test('a pool with a node waiting for a reboot, a drifted node and a held Serial slot', async () => {
    const now = new Date().toISOString();
    for (const [name, conditions] of [
      ['alert-0', [{ type: REBOOT_REQUIRED_CONDITION, status: 'True', reason: 'PackagesUpgraded' }]],
      ['alert-1', [{ type: CONFIG_DRIFT_CONDITION, status: 'True', reason: 'Drifted' }]],
    ] as const) {
      await h.admin.create('/api/v1/nodes', {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name, labels: { pool: POOL } },
      });
      await h.admin.patch(
        `/api/v1/nodes/${name}/status`,
        {
          status: {
            conditions: conditions.map((c) => ({
              ...c,
              message: '',
              lastHeartbeatTime: now,
              lastTransitionTime: c.type === REBOOT_REQUIRED_CONDITION ? REBOOT_SINCE : now,
            })),
          },
        },
        'strategic',
      );
    }
    await h.applyConfig(`${POOL}-config`, kubeletConfig('one'), { pool: POOL });
    await h.createPool(POOL, {
      nodeSelector: { matchLabels: { pool: POOL } },
      configSelector: { matchLabels: { pool: POOL } },
    });
    await h.admin.create(LEASES, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: `nodeherd-serial-${POOL}-0`, labels: { [SERIAL_POOL_LABEL]: POOL } },
      spec: {
        holderIdentity: 'alert-1',
        leaseDurationSeconds: 600,
        acquireTime: SLOT_ACQUIRED,
        renewTime: SLOT_ACQUIRED,
      },
    });

    const scraped = await eventually('the pool and its nodes on /metrics', async () => {
      const s = await scrape();
      const drifted = s.get('nodeherd_pool_status_drifted_nodes')?.find((x) => x.labels.includes(POOL));
      const slot = s.get('nodeherd_serial_slot_acquired_timestamp_seconds');
      return drifted?.value === 1 && slot?.length ? s : undefined;
    });
    const referenced = new Set(ALERT_RULE_GROUPS.flatMap((g) => g.rules.flatMap((r) => metricNames(r.expr))));
    assert.deepEqual(
      [...referenced].sort(),
      [
        'nodeherd_controller_leader',
        'nodeherd_node_reboot_required_since_timestamp_seconds',
        'nodeherd_pool_status_condition',
        'nodeherd_pool_status_drifted_nodes',
        'nodeherd_pool_status_failed_nodes',
        'nodeherd_serial_slot_acquired_timestamp_seconds',
      ],
      'the names the rules read (this list changes with the rules)',
    );
    for (const name of referenced) assert.ok(scraped.get(name)?.length, `${name}: no series on /metrics`);

    assert.deepEqual(scraped.get('nodeherd_node_reboot_required_since_timestamp_seconds'), [
      { labels: `{pool="${POOL}",node="alert-0"}`, value: Date.parse(REBOOT_SINCE) / 1000 },
    ]);
    assert.deepEqual(scraped.get('nodeherd_serial_slot_acquired_timestamp_seconds'), [
      {
        labels: `{pool="${POOL}",lease="nodeherd-serial-${POOL}-0",node="alert-1"}`,
        value: Date.parse(SLOT_ACQUIRED) / 1000,
      },
    ]);
    const stalled = scraped
      .get('nodeherd_pool_status_condition')!
      .filter((x) => x.labels.startsWith(`{pool="${POOL}",condition="Stalled"`));
    assert.equal(stalled.length, 3, 'a series per status of Stalled');
    assert.equal(
      stalled.reduce((sum, x) => sum + x.value, 0),
      1,
      'exactly one status of a condition is 1',
    );
    const failed = scraped.get('nodeherd_pool_status_failed_nodes')!.find((x) => x.labels.includes(POOL));
    assert.equal(failed?.value, 0);

    // The slot released, then the pool deleted: their series go.
    await h.admin.delete(`${LEASES}/nodeherd-serial-${POOL}-0`);
    await eventually('the released slot off /metrics', async () =>
      (await scrape()).get('nodeherd_serial_slot_acquired_timestamp_seconds') ? undefined : true,
    );
    await h.admin.delete(`${GROUP_PATH}/nodeconfigpools/${POOL}`);
    const gone = await eventually('the deleted pool off /metrics', async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      return text.includes(`pool="${POOL}"`) ? undefined : text;
    });
    assert.doesNotMatch(gone, /nodeherd_pool_status_condition\{pool="alerting"/);

    // The pool again, then the controller stopped (a replica that no longer leads): its stale caches
    // are not exported.
    await h.createPool(POOL, {
      nodeSelector: { matchLabels: { pool: POOL } },
      configSelector: { matchLabels: { pool: POOL } },
    });
    const reboot = 'nodeherd_node_reboot_required_since_timestamp_seconds';
    await eventually('the node waiting for a reboot back', async () => (await scrape()).get(reboot)?.length);
    await h.stopController(controller);
    assert.equal((await scrape()).get(reboot), undefined, 'a stopped controller exports no node series');
  });
});
