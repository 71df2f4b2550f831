// Reboot rounds on the simulated fleet (issue 34.1, controller side): the OS asks 10 nodes of a pool
// with policy Reboot for a reboot (Debian's sentinel, raised by the simulation); outside the pool's
// maintenance window nothing happens; inside it they are drained and rebooted two at a time, each
// once, come back with the condition cleared, and the round completes. Then one node asks again while
// a config change rolls out: it gets the revision and the request in one write, and reboots once.
// Last, one node asks while a revision whose disruption is Reboot rolls out (a sysctl drop-in): every
// node reboots once for it, the one asking too (one reboot for both), two at a time.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  REBOOT_REQUESTED_ANNOTATION,
  REBOOT_REQUIRED_CONDITION,
  REBOOTED_ANNOTATION,
} from '../../../src/api/node-protocol.ts';
import type { NodeConfigSpec } from '../../../src/api/types.ts';
import { CORDONED_BY_ANNOTATION } from '../../../src/controller/annotations.ts';
import type { Node } from '../../../src/kube/types.ts';
import {
  ClusterHarness,
  complete,
  condition,
  eventually,
  kubeletConfig,
  type PoolObject,
  revisionNameFor,
  rollingUpdate,
} from '../../support/cluster-harness.ts';
import { NodeWatch } from '../support/node-watch.ts';

const POOL = 'rebooting';

describe('reboot rounds on the simulated fleet', () => {
  let h: ClusterHarness;
  let watch: NodeWatch;
  let offset = 0;
  const setClock = (iso: string) => {
    offset = Date.parse(iso) - Date.now();
  };
  /** The most nodes of the pool disrupted at once (cordoned by us, rebooting, or NotReady). */
  let maxDisrupted = 0;
  const disrupted = new Set<string>();
  /** Reboot requests seen per node. */
  const requests = new Map<string, Set<string>>();
  /** Per node: the revisions handed out in the same write as a new reboot request. */
  const handedTogether = new Map<string, string[]>();
  const lastSeen = new Map<string, Record<string, string>>();

  const poolWhere = (what: string, ok: (p: PoolObject) => boolean, ms = 60_000) =>
    h.poolWhere(POOL, what, ok, ms);
  const asking = async () =>
    (await h.nodes(`pool=${POOL}`))
      .filter((n) =>
        (n.status?.conditions as { type: string; status: string; reason?: string }[] | undefined)?.some(
          (c) => c.type === REBOOT_REQUIRED_CONDITION && c.status === 'True' && c.reason !== 'Rebooting',
        ),
      )
      .map((n) => n.metadata.name);

  before(async () => {
    h = await ClusterHarness.start({
      fleet: { rebootDownMs: 300 },
      agents: { agent: { reboots: { intervalMs: 200 } } },
    });
    await h.startController({ now: () => Date.now() + offset });
    setClock('2030-01-07T02:00:00Z');
    watch = new NodeWatch(h.controllerConfig());
    watch.on((node: Node) => {
      if (node.metadata.labels?.pool !== POOL) return;
      const name = node.metadata.name;
      const a = node.metadata.annotations ?? {};
      const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
      const pending =
        a[REBOOT_REQUESTED_ANNOTATION] !== undefined &&
        a[REBOOTED_ANNOTATION] !== a[REBOOT_REQUESTED_ANNOTATION];
      const request = a[REBOOT_REQUESTED_ANNOTATION];
      if (request) requests.set(name, (requests.get(name) ?? new Set()).add(request));
      const was = lastSeen.get(name);
      if (
        was &&
        request !== undefined &&
        request !== was[REBOOT_REQUESTED_ANNOTATION] &&
        a[DESIRED_REVISION_ANNOTATION] !== was[DESIRED_REVISION_ANNOTATION]
      )
        handedTogether.set(name, [...(handedTogether.get(name) ?? []), a[DESIRED_REVISION_ANNOTATION]!]);
      lastSeen.set(name, a);
      // Only once the pool is set up: bootstrapping nodes start NotReady.
      if (a[CURRENT_REVISION_ANNOTATION] === undefined) return;
      if (a[CORDONED_BY_ANNOTATION] !== undefined || pending || !ready) disrupted.add(name);
      else disrupted.delete(name);
      maxDisrupted = Math.max(maxDisrupted, disrupted.size);
    });
    await watch.start();
    await h.addNodes(POOL, 10);
    await h.labelledPool(POOL, 'rebooting-kubelet', kubeletConfig('a'), {
      updateStrategy: rollingUpdate({
        maxUnavailable: 2,
        progressDeadlineSeconds: 60,
        maintenanceWindows: [{ schedule: '0 3 * * *', duration: '2h', timeZone: 'UTC' }],
      }),
      reboots: { osRequested: { policy: 'Reboot' } },
    });
  });
  after(async () => {
    await watch?.stop();
    await h?.stop();
  });

  test('outside the window the nodes only wait; inside it they reboot two at a time, once each', async () => {
    await poolWhere('bootstrapped', (p) => complete()(p) && p.status?.updated === 10);
    const names = [...h.fleet.names()];
    for (const name of names) await h.fleet.requireReboot(name);
    await eventually(
      'all 10 report RebootRequired',
      async () => ((await asking()).length === 10 ? true : undefined),
      30_000,
    );
    const waiting = await poolWhere(
      'the round waits for the window',
      (p) => condition(p, 'Progressing')?.reason === 'OutsideMaintenanceWindow',
    );
    assert.equal(condition(waiting, 'Complete')?.status, 'False');
    assert.match(String(waiting.status?.history?.at(-1)?.message), /^reboot round: the OS asks /);
    assert.equal(requests.size, 0, 'no reboot requested outside the window');
    for (const name of names) assert.equal(h.fleet.node(name)!.host.reboots, 0);

    // From here on (the nodes' first boots, NotReady for a moment, are behind us).
    assert.equal(disrupted.size, 0);
    maxDisrupted = 0;
    setClock('2030-01-07T03:00:00Z');
    const done = await poolWhere(
      'the round completes',
      (p) =>
        condition(p, 'Complete')?.status === 'True' &&
        condition(p, 'Progressing')?.reason === 'RolloutComplete',
      120_000,
    );
    assert.equal(done.status?.history?.at(-1)?.result, 'Complete');
    for (const name of names) {
      assert.equal(h.fleet.node(name)!.host.reboots, 1, `${name} rebooted once`);
      assert.equal(requests.get(name)?.size, 1, `${name} was asked once`);
    }
    assert.deepEqual(await asking(), []);
    assert.ok(maxDisrupted <= 2, `at most 2 nodes disrupted at once, saw ${maxDisrupted}`);
    assert.equal(maxDisrupted, 2, 'two at a time');
    const events = await h.events('Node', names[0]!);
    assert.ok(
      events.some((e) => e.reason === 'DrainStarted' && /the reboot its OS asks for/.test(e.message)),
    );
  });

  test('a node asking while a config change rolls out gets the revision and the request in one patch, and reboots once', async () => {
    const names = h.fleet.names();
    const [merged] = names as [string];
    const before = new Map(names.map((n) => [n, h.fleet.node(n)!.host.reboots]));
    // Paused first, so the request and the change meet on the node (no reboot round starts meanwhile).
    await h.patchPool(POOL, { spec: { paused: true } });
    await h.fleet.requireReboot(merged);
    await eventually('it asks', async () => ((await asking()).includes(merged) ? true : undefined), 30_000);
    await h.applyConfig('rebooting-kubelet', kubeletConfig('b'), { pool: POOL });
    const revision = revisionNameFor(POOL, { 'rebooting-kubelet': kubeletConfig('b') });
    await poolWhere('the new revision is the target', (p) => p.status?.targetRevision === revision);
    assert.equal(requests.get(merged)?.size, 1, 'nothing asked while paused');
    await h.patchPool(POOL, { spec: { paused: false } });
    await poolWhere(
      'complete on the new revision',
      (p) => p.status?.currentRevision === revision && condition(p, 'Complete')?.status === 'True',
      120_000,
    );
    assert.deepEqual(handedTogether.get(merged), [revision], 'revision and reboot request in one patch');
    for (const name of names) {
      const rebooted = h.fleet.node(name)!.host.reboots - before.get(name)!;
      assert.equal(rebooted, name === merged ? 1 : 0, `${name} rebooted ${rebooted} times`);
      if (name !== merged) assert.equal(handedTogether.get(name), undefined);
    }
    assert.equal(requests.get(merged)?.size, 2);
    assert.deepEqual(await asking(), []);
  });

  test('a node asking while a revision whose disruption is Reboot rolls out reboots once for both; the others once each, two at a time', async () => {
    const names = h.fleet.names();
    const merged = names[1]!;
    const before = new Map(names.map((n) => [n, h.fleet.node(n)!.host.reboots]));
    const asked = requests.get(merged)?.size ?? 0;
    await h.patchPool(POOL, { spec: { paused: true } });
    await h.fleet.requireReboot(merged);
    await eventually('it asks', async () => ((await asking()).includes(merged) ? true : undefined), 30_000);
    const spec = rebootingConfig('c');
    await h.applyConfig('rebooting-kubelet', spec, { pool: POOL });
    const revision = revisionNameFor(POOL, { 'rebooting-kubelet': spec });
    await poolWhere('the new revision is the target', (p) => p.status?.targetRevision === revision);
    maxDisrupted = 0;
    await h.patchPool(POOL, { spec: { paused: false } });
    await poolWhere(
      'complete on the new revision',
      (p) => p.status?.currentRevision === revision && condition(p, 'Complete')?.status === 'True',
      120_000,
    );
    for (const name of names) {
      const rebooted = h.fleet.node(name)!.host.reboots - before.get(name)!;
      assert.equal(rebooted, 1, `${name} rebooted ${rebooted} times`);
    }
    assert.equal(requests.get(merged)?.size, asked + 1, 'asked once more, with the revision');
    assert.equal(handedTogether.get(merged)?.at(-1), revision, 'revision and reboot request in one patch');
    assert.deepEqual(await asking(), []);
    assert.ok(maxDisrupted <= 2, `at most 2 nodes disrupted at once, saw ${maxDisrupted}`);
  });
});

/** kubeletConfig plus a sysctl file whose change the agent applies with a reboot. */
function rebootingConfig(value: string): NodeConfigSpec {
  const spec = kubeletConfig(value);
  spec.files!.push({
    path: '/etc/sysctl.d/90-nodeherd.conf',
    content: { inline: { data: `vm.swappiness=${value.length}\n` } },
  });
  spec.disruptionPolicies = { files: [{ path: '/etc/sysctl.d/**', action: 'Reboot' }] };
  return spec;
}
