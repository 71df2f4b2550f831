// issue 36: a failure explains itself. The agent attaches the failed unit's last journal lines (read
// through the systemd executor, `journalctl -u <unit> -n 20`) to its report: the cause line in the
// Node's message and the Failed Event, the whole excerpt in the NodeConfigReady condition, and no
// line holding the value of a file that came from a Secret anywhere.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EXCERPT_MAX_BYTES, REDACTED_LINE } from '../../src/agent/apply/failure-excerpt.ts';
import { MAX_CONDITION_MESSAGE_BYTES } from '../../src/agent/report/node-reporter.ts';
import { SECRETS_NAMESPACE } from '../../src/api/group.ts';
import type { NodeConfigSpec } from '../../src/api/types.ts';
import type { Secret } from '../../src/kube/types.ts';
import { revisionOf, secretSnapshot } from '../support/nodeherd-objects.ts';
import {
  type Cluster,
  createPool,
  createRevision,
  nodeEvents,
  REVISIONS,
  setDesired,
  startCluster,
  startNode,
  waitForMessage,
  waitForState,
} from './agent-harness.ts';

const SECRET_VALUE = 'token=Tk-9f8e7d6c5b\n';
const CAUSE = 'error: listen tcp 127.0.0.1:8080: bind: address already in use';

function goodSpec(): NodeConfigSpec {
  return {
    files: [{ path: '/etc/app/app.conf', content: { inline: { data: 'version=1\n' } } }],
    units: [
      { name: 'app.service', content: '[Service]\nExecStart=/bin/app\n', filePaths: ['/etc/app/app.conf'] },
    ],
  };
}

describe('node agent: a failure explains itself (issue 36)', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster();
    await createPool(cluster, 'explained', {
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { failurePolicy: { action: 'Rollback' } } },
    });
  });
  after(async () => {
    await cluster?.stop();
  });

  it("reports the unit's journal, bounded, with Secret values masked, in the condition, the message and the Event", async () => {
    const node = await startNode(cluster, 'explain-1');
    const good = await createRevision(cluster, 'explained', goodSpec());
    await setDesired(cluster, node.name, good.metadata.name);
    await waitForState(cluster, node.name, 'Done');

    const secret = await cluster.admin.create<Secret>(`/api/v1/namespaces/${SECRETS_NAMESPACE}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'bad-token' },
      data: { token: Buffer.from(SECRET_VALUE).toString('base64') },
    });
    const badSpec = goodSpec();
    badSpec.files!.push({
      path: '/etc/bad/token',
      mode: 0o600,
      content: { secretRef: { namespace: SECRETS_NAMESPACE, name: 'bad-token', key: 'token' } },
    });
    badSpec.units!.push({
      name: 'bad.service',
      content: '[Service]\nExecStart=/bin/bad\n',
      filePaths: ['/etc/bad/token'],
    });
    const bad = revisionOf('explained', badSpec, 2, {
      secrets: () =>
        secretSnapshot(SECRET_VALUE, secret.metadata.uid, secret.metadata.resourceVersion as string),
    });
    await cluster.admin.create(REVISIONS, bad);

    // What bad.service logged on its earlier tries: more lines than the excerpt keeps, one with the
    // Secret's value, then why it exits, then systemd's own lines.
    for (let i = 0; i < 30; i++) node.systemd.log('bad.service', `bad: try ${i}`);
    node.systemd.log('bad.service', `bad: read ${SECRET_VALUE.trim()} from /etc/bad/token`);
    node.systemd.log('bad.service', CAUSE);
    node.systemd.log('bad.service', 'bad.service: Main process exited, code=exited, status=1/FAILURE');
    node.systemd.log('bad.service', "bad.service: Failed with result 'exit-code'.");
    node.systemd.fail('start', 'bad.service');
    await setDesired(cluster, node.name, bad.metadata.name);

    const failed = await waitForMessage(cluster, node.name, /rolled back to/);
    const message = failed.metadata?.annotations?.['nodeherd.io/message'] ?? '';
    assert.ok(message.includes(CAUSE), message);
    const condition = failed.status?.conditions?.find((c) => c.type === 'NodeConfigReady');
    assert.equal(condition?.reason, 'RolledBack');
    const text = condition?.message ?? '';
    assert.match(
      text,
      /^revision \S+ failed; rolled back to \S+: start-unit:bad\.service: injected failure[^\n]*\n/,
    );
    assert.match(text, /journalctl -u bad\.service -n 20/);
    assert.ok(text.includes(CAUSE));
    assert.ok(text.includes(REDACTED_LINE), text);
    assert.doesNotMatch(text, /bad: try 9\b/, 'only the last 20 journal lines');
    assert.match(text, /bad: try 29/);
    assert.ok(Buffer.byteLength(text) <= MAX_CONDITION_MESSAGE_BYTES);
    assert.ok(Buffer.byteLength(text.slice(text.indexOf('\n') + 1)) <= EXCERPT_MAX_BYTES);

    const events = await nodeEvents(cluster, node.name);
    const failedEvent = events.find((e) => e.reason === 'Failed');
    assert.ok(failedEvent?.message?.includes(CAUSE), failedEvent?.message);
    const rolledBack = events.find((e) => e.reason === 'RolledBack');
    assert.ok(rolledBack?.message?.includes(CAUSE), rolledBack?.message);

    // The Secret's value is nowhere the cluster can read.
    const everything = JSON.stringify({ node: failed, events });
    assert.ok(!everything.includes('Tk-9f8e7d6c5b'), 'the Secret value leaked');

    // After a restart the agent reports the same failure, excerpt and all (it is in its state).
    await node.restart();
    const again = await waitForMessage(cluster, node.name, /rolled back to/);
    assert.equal(again.status?.conditions?.find((c) => c.type === 'NodeConfigReady')?.message, text);
  });
});
