// The webhook notifier against a real local HTTP receiver: a receiver that fails twice then succeeds
// gets the notification on the third attempt, after backoff; the generic JSON, Slack and Teams bodies;
// a 4xx is final; a hanging receiver never blocks notify() and the queue stays bounded; the logs never
// show the URL's path or the credentials. And the Secret that configures a webhook.

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { Notifier } from '../../../src/controller/notifications/notifier.ts';
import type { RolloutEvent } from '../../../src/controller/notifications/rollout-events.ts';
import {
  WEBHOOK_LABEL,
  type WebhookTarget,
  webhookTarget,
} from '../../../src/controller/notifications/webhook-config.ts';
import type { Secret } from '../../../src/kube/types.ts';
import { eventually } from '../../support/eventually.ts';
import { WebhookReceiver } from './receiver.ts';

const SECRET_PATH = '/services/T0001/B0002/s3cr3tPathToken';

function target(url: string, format: WebhookTarget['format'] = 'json', headers = {}): WebhookTarget {
  return { name: 'ops', url: new URL(url), format, headers, version: '1' };
}

const event: RolloutEvent = {
  kind: 'RolloutFailed',
  pool: 'workers',
  revision: 'workers-5d8c',
  message: 'workers-5d8c failed: node-3 (unit kubelet.service failed: exit code 1)',
  time: '2026-11-29T05:00:00.000Z',
};

function logSink(): { logger: pino.Logger; text: () => string } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), text: () => lines.join('') };
}

function secret(data: Record<string, string>, labelled = true): Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'ops',
      namespace: 'nodeherd',
      resourceVersion: '7',
      ...(labelled ? { labels: { [WEBHOOK_LABEL]: 'true' } } : {}),
    },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  } as Secret;
}

describe('webhook notifier', () => {
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await new WebhookReceiver().start();
  });
  after(async () => {
    await receiver.stop();
  });

  test('a receiver that fails twice then succeeds gets it on the third attempt, after backoff', async () => {
    receiver.received.length = 0;
    receiver.script = [503, 500];
    const { logger, text } = logSink();
    // Equal jitter: the n-th delay is between half and all of 200 ms * 2^(n-1).
    const notifier = new Notifier({ logger, backoff: { initialMs: 200, maxMs: 1_000 }, attempts: 5 });
    const t = target(`${receiver.url}${SECRET_PATH}`, 'json', { authorization: 'Bearer tok-SECRET-42' });
    const before = Date.now();
    notifier.notify(t, event);
    assert.ok(Date.now() - before < 50, 'notify() only queues');
    await notifier.idle();
    assert.deepEqual(
      receiver.received.map((r) => r.status),
      [503, 500, 200],
    );
    const [first, second, third] = receiver.received;
    assert.ok(second!.at - first!.at >= 90, `backoff before the 2nd attempt: ${second!.at - first!.at} ms`);
    assert.ok(third!.at - second!.at >= 190, `doubled before the 3rd: ${third!.at - second!.at} ms`);
    for (const r of receiver.received) {
      assert.equal(r.method, 'POST');
      assert.equal(r.path, SECRET_PATH);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers.authorization, 'Bearer tok-SECRET-42');
      assert.deepEqual(r.body, { source: 'nodeherd', ...event });
    }
    assert.deepEqual(notifier.stats, { delivered: 1, failed: 0, retried: 2, dropped: 0 });
    const logs = text();
    assert.match(logs, /notification failed; retrying/);
    assert.match(logs, new RegExp(receiver.url.replace(/[.]/g, '\\.')));
    assert.doesNotMatch(logs, /s3cr3tPathToken|T0001|tok-SECRET-42/);
    await notifier.stop();
  });

  test('Slack and Teams bodies', async () => {
    receiver.received.length = 0;
    receiver.script = [];
    const notifier = new Notifier();
    notifier.notify(target(`${receiver.url}/slack`, 'slack'), event);
    notifier.notify(target(`${receiver.url}/teams`, 'teams'), event);
    await notifier.idle();
    const slack = receiver.received.find((r) => r.path === '/slack')?.body as { text: string };
    assert.equal(
      slack.text,
      ':warning: *Rollout failed: NodeConfigPool workers*\nworkers-5d8c failed: node-3 (unit kubelet.service failed: exit code 1)',
    );
    const teams = receiver.received.find((r) => r.path === '/teams')?.body as {
      type: string;
      attachments: {
        contentType: string;
        content: { type: string; body: { text?: string; facts?: unknown }[] };
      }[];
    };
    assert.equal(teams.type, 'message');
    assert.equal(teams.attachments[0]?.contentType, 'application/vnd.microsoft.card.adaptive');
    const card = teams.attachments[0]!.content;
    assert.equal(card.type, 'AdaptiveCard');
    assert.equal(card.body[0]?.text, 'Rollout failed: NodeConfigPool workers');
    assert.equal(card.body[1]?.text, event.message);
    assert.deepEqual(card.body[2]?.facts, [
      { title: 'Pool', value: 'workers' },
      { title: 'Revision', value: 'workers-5d8c' },
      { title: 'Time', value: event.time },
    ]);
    await notifier.stop();
  });

  test('a 4xx other than 408 and 429 is final: one attempt', async () => {
    receiver.received.length = 0;
    receiver.script = [400];
    const notifier = new Notifier({ backoff: { initialMs: 50, maxMs: 100 } });
    notifier.notify(target(`${receiver.url}/bad`), event);
    await notifier.idle();
    assert.equal(receiver.received.length, 1);
    assert.deepEqual(notifier.stats, { delivered: 0, failed: 1, retried: 0, dropped: 0 });
    await notifier.stop();
  });

  test('a hanging receiver blocks nothing: notify() returns, the queue stays bounded', async () => {
    receiver.received.length = 0;
    receiver.script = Array(20).fill(0);
    const notifier = new Notifier({ concurrency: 1, maxPending: 3, timeoutMs: 500, attempts: 1 });
    const started = Date.now();
    for (let i = 0; i < 10; i++)
      notifier.notify(target(`${receiver.url}/hang`), { ...event, message: `#${i}` });
    assert.ok(Date.now() - started < 100, 'ten notify() calls return at once');
    await eventually('the first delivery in flight', async () => receiver.received.length === 1);
    // One in flight, three queued, the six oldest of the rest dropped.
    assert.equal(notifier.stats.dropped, 6);
    await notifier.idle();
    assert.deepEqual(
      receiver.received.map((r) => (r.body as { message: string }).message),
      ['#0', '#7', '#8', '#9'],
    );
    assert.equal(notifier.stats.failed, 4);
    await notifier.stop();
  });

  test('a network error is retried; stop() ends the retries', async () => {
    const notifier = new Notifier({ backoff: { initialMs: 60_000, maxMs: 60_000 } });
    notifier.notify(target('http://127.0.0.1:1/x'), event);
    await eventually('a retry waiting', async () => notifier.stats.retried === 1);
    const started = Date.now();
    await notifier.stop();
    assert.ok(Date.now() - started < 5_000);
    assert.equal(notifier.stats.failed, 1);
  });
});

describe('webhook Secrets', () => {
  const lookup = (s: Secret | undefined) =>
    webhookTarget('ops', (ns, name) => (ns === 'nodeherd' && name === 'ops' ? s : undefined));

  test('url, format and bearer token', () => {
    const found = lookup(
      secret({ url: 'https://hooks.slack.com/services/T/B/X', format: 'slack', token: 't' }),
    );
    assert.ok(found.ok);
    assert.equal(found.target.format, 'slack');
    assert.equal(found.target.url.href, 'https://hooks.slack.com/services/T/B/X');
    assert.equal(found.target.headers.authorization, 'Bearer t');
  });

  test('credentials in the URL move into the header', () => {
    const found = lookup(secret({ url: 'https://user:p%40ss@hooks.example/in' }));
    assert.ok(found.ok);
    assert.equal(found.target.url.href, 'https://hooks.example/in');
    assert.equal(found.target.headers.authorization, `Basic ${Buffer.from('user:p@ss').toString('base64')}`);
  });

  const refused: [string, Secret | undefined, RegExp][] = [
    ['a missing Secret', undefined, /Secret nodeherd\/ops\) not found/],
    [
      'a Secret not labelled as a webhook',
      secret({ url: 'http://x/' }, false),
      /not labelled nodeherd.io\/notification-webhook="true"/,
    ],
    ['a Secret without url', secret({ format: 'json' }), /has no url/],
    ['a url that is not http', secret({ url: 'file:///etc/passwd' }), /http or https/],
    [
      'an unknown format',
      secret({ url: 'http://x/', format: 'discord' }),
      /format must be one of json, slack, teams/,
    ],
    [
      'token and username',
      secret({ url: 'http://x/', token: 'a', username: 'b' }),
      /both token and username/,
    ],
  ];
  for (const [name, s, message] of refused)
    test(`refuses ${name}, without showing the URL`, () => {
      const found = lookup(s);
      assert.equal(found.ok, false);
      if (!found.ok) {
        assert.match(found.message, message);
        assert.doesNotMatch(found.message, /passwd|http:\/\/x/);
      }
    });
});
