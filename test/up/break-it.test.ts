// The README's "break it on purpose" tour, as a user runs it: `nodeherd up`'s cluster (embedded API
// server, rollout controller, simulated nodes running the real agent, the sample pool), then
// `kubectl apply -f examples/break-it/nodeconfig-bad-max-pods.yaml` (maxPods: -1). The canary's
// simulated kubelet refuses the configuration and exits, the kubelet unit fails with kubelet's own
// message naming the field, the agent reports Failed, and the pool's failure policy rolls it back by
// itself: every node ends on the previous revision, no other node ever got the bad one, and
// `nodeherd status` shows the rollback. Issue 36: the kubelet's reason is where the operator looks —
// the Event, `status` (its first line), `status --node` (the whole journal excerpt), the timeline's
// failed mark, and the pool's recorded episodes — not only in up.log.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import type { RolloutEvent } from '../../src/controller/notifications/rollout-events.ts';
import { WEBHOOK_LABEL } from '../../src/controller/notifications/webhook-config.ts';
import type { KubeClient } from '../../src/kube/kube-client.ts';
import { KUBE_YAML } from '../../src/util/kube-yaml.ts';
import { REPO_ROOT, runCli } from '../cli/support/cli-cluster.ts';
import { WebhookReceiver } from '../controller/notifications/receiver.ts';
import { eventually as pollUntil } from '../support/eventually.ts';
import {
  everyNodeOn,
  GROUP,
  hasKubectl,
  kubectl,
  workersPool as pool,
  poolCondition,
  UpRun,
  watchDesiredRevisions,
} from '../support/up-cluster.ts';

const BAD_CHANGE = 'examples/break-it/nodeconfig-bad-max-pods.yaml';
const NODES = 3;

const up = new UpRun('nodeherd-break-it-');
let receiver: WebhookReceiver | undefined;
after(async () => {
  await receiver?.stop();
});

function eventually<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 120_000) {
  return pollUntil(what, check, timeoutMs, 200);
}

/** Every node Ready and Done on `revision`. */
const allOn = (client: KubeClient, revision: string) => everyNodeOn(client, revision, NODES);

test('break it on purpose: maxPods -1 fails the canary, the pool rolls back by itself, every node ends on the previous revision', {
  timeout: 300_000,
}, async () => {
  const cluster = await up.start(NODES);
  const client = cluster.admin;
  const good = await eventually('the sample on every node', async () => {
    const target = (await pool(client)).status?.targetRevision;
    return target && (await allOn(client, target)) ? target : undefined;
  });

  // A webhook an administrator configured, named by the pool: the notifications carry the reason too.
  receiver = await new WebhookReceiver().start();
  await client.create('/api/v1/namespaces/nodeherd/secrets', {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'ops', namespace: 'nodeherd', labels: { [WEBHOOK_LABEL]: 'true' } },
    stringData: { url: `${receiver.url}/hooks/ops`, format: 'json' },
  });
  await client.patch(`${GROUP}/nodeconfigpools/workers`, { spec: { notifications: { webhooks: ['ops'] } } });

  // Which revision each node is ever told to take, from the moment the bad change goes in.
  const { told, watch } = await watchDesiredRevisions(client);
  try {
    // As the README says: kubectl apply -f examples/break-it/… (the API client where kubectl is absent).
    if (await hasKubectl()) {
      const applied = await kubectl(['apply', '-f', BAD_CHANGE], cluster.kubeconfigPath);
      assert.equal(applied.code, 0, applied.out);
      assert.match(applied.out, /nodeconfig\.nodeherd\.io\/workers-base configured/);
    } else {
      const object = parse(readFileSync(join(REPO_ROOT, BAD_CHANGE), 'utf8'), KUBE_YAML) as { spec: unknown };
      await client.patch(`${GROUP}/nodeconfigs/workers-base`, { spec: object.spec });
    }

    const rolledBack = await eventually('the pool to roll back by itself', async () => {
      const p = await pool(client);
      return poolCondition(p, 'RolledBack')?.status === 'True' ? p : undefined;
    });
    const bad = rolledBack.metadata.annotations?.['nodeherd.io/rollback-from'];
    assert.ok(bad && bad !== good, `the bad revision is held back: ${JSON.stringify(rolledBack.metadata)}`);
    assert.equal(rolledBack.metadata.annotations?.['nodeherd.io/rollback-to'], good);
    assert.equal(poolCondition(rolledBack, 'RolledBack')?.reason, 'FailurePolicy');
    assert.equal(rolledBack.spec.paused ?? false, false, 'rolled back, not paused');

    // Every node ends on the previous revision, Ready and Done, checked through the API.
    await eventually('every node back on the previous revision', () => allOn(client, good));
    const p = await pool(client);
    assert.equal(p.status?.targetRevision, good);
    assert.equal(p.status?.currentRevision, good);

    // Only the canary was ever given the bad revision.
    const gotBad = [...told].filter(([, revisions]) => revisions.has(bad)).map(([name]) => name);
    assert.equal(gotBad.length, 1, `given the bad revision: ${gotBad.join(', ')}`);
    const canary = gotBad[0]!;

    // The canary's kubelet said why it exited, as kubelet does, in its unit's journal (up.log).
    const log = await eventually(
      'the kubelet failure in up.log',
      async () => {
        const text = readFileSync(cluster.state.logFile, 'utf8');
        return text.includes('must not be a negative number') ? text : undefined;
      },
      10_000,
    );
    const lines = log
      .split('\n')
      .filter((line) => line.includes(`"node":"${canary}"`) && line.includes('"unit":"kubelet.service"'));
    assert.ok(
      lines.some((line) =>
        line.includes(
          'failed to validate kubelet configuration, error: invalid configuration: maxPods (--max-pods) -1 must not be a negative number',
        ),
      ),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((line) => line.includes('status=1/FAILURE')),
      lines.join('\n'),
    );

    // `nodeherd status` shows the rollback, and why the canary failed in the kubelet's own words.
    const env = { env: { KUBECONFIG: cluster.kubeconfigPath } };
    const status = await runCli(['status', 'workers'], env);
    assert.equal(status.code, 0, status.stderr);
    assert.match(
      status.stdout,
      new RegExp(
        `failed ${canary} \\(rolled back\\): revision ${bad} failed: unit kubelet\\.service failed \\(failed\\): .*maxPods \\(--max-pods\\) -1 must not be a negative number`,
      ),
      status.stdout,
    );
    const detail = await runCli(['status', 'workers', '--node', canary], env);
    assert.equal(detail.code, 0, detail.stderr);
    assert.match(detail.stdout, /journalctl -u kubelet\.service -n 20:/, detail.stdout);
    assert.match(detail.stdout, /"command failed" err="failed to validate kubelet configuration/);
    assert.match(detail.stdout, /kubelet\.service: Main process exited, code=exited, status=1\/FAILURE/);
    const events = await client.list<{
      reason?: string;
      message?: string;
      involvedObject?: { name?: string };
    }>('/api/v1/events', { fieldSelector: `involvedObject.name=${canary}` });
    const failedEvent = events.items.find((e) => e.reason === 'Failed');
    assert.match(failedEvent?.message ?? '', /maxPods \(--max-pods\) -1 must not be a negative number/);
    const episodes =
      (
        await client.get<{
          status?: { episodes?: { node: string; kind: string; revision?: string; message?: string }[] };
        }>(`${GROUP}/nodeconfigpools/workers`)
      ).status?.episodes ?? [];
    const failure = episodes.find((e) => e.node === canary && e.kind === 'Failed');
    assert.equal(failure?.revision, bad);
    assert.match(failure?.message ?? '', /must not be a negative number/);
    const notified = await eventually('the RolledBack notification', async () =>
      receiver!.received
        .map((r) => r.body as RolloutEvent)
        .find((e) => e.kind === 'RolledBack' && e.revision === bad),
    );
    assert.match(notified.message, /maxPods \(--max-pods\) -1 must not be a negative number/);
    const timeline = await runCli(['status', 'workers', '--timeline'], env);
    assert.equal(timeline.code, 0, timeline.stderr);
    const row = timeline.stdout.split('\n').find((l) => l.trimStart().startsWith(`${canary} `)) ?? '';
    assert.match(row, /X/, `the canary's failed mark: ${timeline.stdout}`);
    assert.match(status.stdout, /pool workers/);
    assert.match(status.stdout, new RegExp(`target revision\\s+${good}`));
    assert.match(status.stdout, /RolledBack\s+True\s+FailurePolicy/);
    assert.match(status.stdout, new RegExp(`${good} \\(target\\)\\s+\\d+\\s+${NODES}`));
  } finally {
    watch.abort();
  }

  // Going back to the sample ends the pin; nothing is rolled out again (the same revision).
  if (await hasKubectl()) {
    const restored = await kubectl(['apply', '-f', 'deploy/samples/nodeconfig.yaml'], cluster.kubeconfigPath);
    assert.equal(restored.code, 0, restored.out);
    await eventually('the pin lifted', async () => {
      const p = await pool(client);
      return p.metadata.annotations?.['nodeherd.io/rollback-to'] === undefined ? p : undefined;
    });
    assert.equal((await pool(client)).status?.targetRevision, good);
    assert.ok(await allOn(client, good));
  }
});
