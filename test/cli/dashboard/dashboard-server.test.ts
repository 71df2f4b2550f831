// The dashboard's HTTP side against a real embedded API server: the page and its script, the
// server-sent events stream delivering a change, a button's POST pausing the pool (read back through
// the API), the plan of a pending change, and the requests it must refuse (a rebinding Host, another
// origin's POST, and any request, reads included, without the secret of the URL it printed).
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import type { DashboardSnapshot } from '../../../src/cli/dashboard/dashboard-model.ts';
import { Dashboard, DashboardServer } from '../../../src/cli/dashboard/dashboard-server.ts';
import { UPDATE_STARTED_ANNOTATION } from '../../../src/controller/annotations.ts';
import { nodePath } from '../../../src/controller/api-paths.ts';
import { CliCluster, fileConfig } from '../support/cli-cluster.ts';

let cluster: CliCluster;
let server: DashboardServer;
let port: number;
/** The dashboard's cookie, as the browser of the user who opened the printed URL sends it. */
let cookie: string;
let r1: string;
let r2: string;

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with the dashboard's cookie, unless `headers` has a Cookie of its own ('' for none). */
function call(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const all = { Cookie: cookie, ...headers };
    const req = request({ host: '127.0.0.1', port, method, path, headers: all }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Reads snapshots from the SSE stream until one satisfies `wanted`. */
function nextSnapshot(
  wanted: (s: DashboardSnapshot) => boolean,
  timeoutMs = 20_000,
): Promise<DashboardSnapshot> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/api/events', headers: { Cookie: cookie } },
      (res) => {
        assert.equal(res.headers['content-type'], 'text/event-stream');
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const message = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = /^event: snapshot\ndata: (.*)$/s.exec(message)?.[1];
            if (!data) continue;
            const snapshot = JSON.parse(data) as DashboardSnapshot;
            if (wanted(snapshot)) {
              clearTimeout(timer);
              req.destroy();
              resolve(snapshot);
            }
          }
        });
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error('no matching snapshot on the event stream in time'));
    }, timeoutMs);
    req.on('error', () => {});
    req.end();
  });
}

before(async () => {
  cluster = await CliCluster.start();
  await cluster.createPool('web', {
    nodeSelector: { matchLabels: { pool: 'web' } },
    configSelector: { matchLabels: { pool: 'web' } },
  });
  await cluster.createConfig('web-base', fileConfig('/etc/web', 'three\n'), { pool: 'web' });
  r1 = await cluster.createRevision('web', 1, { 'web-base': fileConfig('/etc/web', 'one\n') });
  r2 = await cluster.createRevision('web', 2, { 'web-base': fileConfig('/etc/web', 'two\n') });
  await cluster.setPoolStatus('web', {
    targetRevision: r2,
    history: [
      { revision: 1, name: r1, startedAt: '2026-01-01T00:00:00Z', result: 'Complete' },
      { revision: 2, name: r2, startedAt: new Date(Date.now() - 60_000).toISOString(), result: 'InProgress' },
    ],
  });
  await cluster.createNode({ name: 'web-1', labels: { pool: 'web' }, current: r2 });
  await cluster.createNode({ name: 'web-2', labels: { pool: 'web' }, current: r1 });
  const dashboard = new Dashboard({
    client: cluster.client,
    context: { server: cluster.client.server.origin },
    throttleMs: 100,
  });
  server = await DashboardServer.listen(dashboard, '127.0.0.1', 0);
  port = Number(new URL(server.url).port);
  cookie = `${dashboard.secret.cookieName}=${dashboard.secret.value}`;
  await dashboard.model.synced;
});
after(async () => {
  await server?.close();
  await cluster?.stop();
});

test('the page carries no secret and loads its script from the same server, no CDN', async () => {
  const page = await call('GET', '/');
  assert.equal(page.status, 200);
  assert.match(page.headers['content-type'] as string, /^text\/html/);
  assert.ok(
    !page.body.includes(server.dashboard.secret.value),
    'the page hands no secret to whoever fetches it',
  );
  assert.match(page.body, /<script type="module" src="app.js"><\/script>/);
  assert.doesNotMatch(page.body, /https?:\/\//, 'nothing is loaded from elsewhere');
  assert.match(page.headers['content-security-policy'] as string, /script-src 'self'/);
  const script = await call('GET', '/app.js');
  assert.equal(script.status, 200);
  assert.match(script.headers['content-type'] as string, /^text\/javascript/);
  assert.ok(script.body.includes('api/events'), 'the bundle follows the event stream');
  assert.doesNotMatch(script.body, /\bimport\s*["'{]/, 'one bundle, no further imports');
});

test('the snapshot: pools with target and counts, a track per node', async () => {
  const reply = await call('GET', '/api/snapshot');
  assert.equal(reply.status, 200);
  const snapshot = JSON.parse(reply.body) as DashboardSnapshot;
  const web = snapshot.pools.find((p) => p.name === 'web')!;
  assert.equal(web.timeline.target, r2);
  assert.deepEqual(web.timeline.tracks.map((t) => t.name).sort(), ['web-1', 'web-2']);
  assert.deepEqual(
    web.revisions.map((r) => r.number),
    [2, 1],
  );
  assert.equal(snapshot.fleet.pools.find((p) => p.name === 'web')?.counts.updated, 1);
});

test('the event stream delivers a change: a node starts applying', async () => {
  const started = nextSnapshot((s) => {
    const track = s.pools[0]?.timeline.tracks.find((t) => t.name === 'web-2');
    return track?.segments[track.segments.length - 1]?.state === 'applying';
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await cluster.client.patch(
    nodePath('web-2'),
    {
      metadata: {
        annotations: {
          'nodeherd.io/desired-revision': r2,
          'nodeherd.io/state': 'Applying',
          'nodeherd.io/state-revision': r2,
          [UPDATE_STARTED_ANNOTATION]: new Date().toISOString(),
        },
      },
    },
    'merge',
  );
  const snapshot = await started;
  const track = snapshot.pools[0]!.timeline.tracks.find((t) => t.name === 'web-2')!;
  assert.deepEqual(
    track.segments.map((s) => s.state),
    ['waiting', 'applying'],
  );
});

test("the Pause button's POST pauses the pool, Resume resumes it (read back through the API)", async () => {
  const headers = {
    'Content-Type': 'application/json',
    Origin: `http://127.0.0.1:${port}`,
    'Sec-Fetch-Site': 'same-origin',
  };
  const paused = await call('POST', '/api/pools/web/pause', headers, '{}');
  assert.equal(paused.status, 200, paused.body);
  assert.match(JSON.parse(paused.body).message, /pool web paused/);
  assert.equal((await cluster.getPool('web')).spec.paused, true);
  const again = await call('POST', '/api/pools/web/pause', headers, '{}');
  assert.match(JSON.parse(again.body).message, /already paused; nothing changed/);
  const resumed = await call('POST', '/api/pools/web/resume', headers);
  assert.equal(resumed.status, 200, resumed.body);
  assert.equal((await cluster.getPool('web')).spec.paused, false);

  const unknown = await call('POST', '/api/pools/nope/pause', headers);
  assert.equal(unknown.status, 409);
  assert.match(JSON.parse(unknown.body).error, /no NodeConfigPool named "nope"; known pools: web/);
  const badRevision = await call('POST', '/api/pools/web/rollback', headers, '{"toRevision":"x"}');
  assert.equal(badRevision.status, 400);
  assert.match(JSON.parse(badRevision.body).error, /^toRevision: must be a revision number/);
  assert.equal((await cluster.getPool('web')).spec.rollbackTo, undefined, 'bad input changes nothing');
  const rollback = await call('POST', '/api/pools/web/rollback', headers, '{}');
  assert.equal(rollback.status, 200, rollback.body);
  assert.equal((await cluster.getPool('web')).spec.rollbackTo?.revision, 1);
});

test('refused: a rebinding Host (reads too), another origin, another site, no secret', async () => {
  const rebinding = await call('GET', '/api/snapshot', { Host: 'evil.example:9470' });
  assert.equal(rebinding.status, 403);
  assert.match(rebinding.body, /only requests addressed to localhost or a loopback address/);
  assert.equal((await call('GET', '/', { Host: `evil.example:${port}` })).status, 403);
  assert.equal((await call('GET', '/', { Host: `localhost:${port}` })).status, 200);

  const ok = { 'Content-Type': 'application/json' };
  const crossOrigin = await call('POST', '/api/pools/web/pause', { ...ok, Origin: 'http://evil.example' });
  assert.equal(crossOrigin.status, 403);
  assert.match(crossOrigin.body, /from another origin/);
  const crossSite = await call('POST', '/api/pools/web/pause', { ...ok, 'Sec-Fetch-Site': 'cross-site' });
  assert.equal(crossSite.status, 403);
  const noSecret = await call('POST', '/api/pools/web/pause', { ...ok, Cookie: '' });
  assert.equal(noSecret.status, 401);
  const wrongSecret = await call('POST', '/api/pools/web/pause', {
    ...ok,
    Cookie: `${server.dashboard.secret.cookieName}=00`,
  });
  assert.equal(wrongSecret.status, 401);
  const wrongBearer = await call('POST', '/api/pools/web/pause', {
    ...ok,
    Cookie: '',
    Authorization: 'Bearer 00',
  });
  assert.equal(wrongBearer.status, 401);
  assert.notEqual((await cluster.getPool('web')).spec.paused, true, 'no refused request paused the pool');
});

test('the plan of the pending change: the NodeConfigs on the server against the target', async () => {
  const reply = await call('GET', '/api/pools/web/plan');
  assert.equal(reply.status, 200, reply.body);
  const plan = JSON.parse(reply.body) as { unchanged: boolean; text: string };
  assert.equal(plan.unchanged, false, 'web-base says "three": a revision 3 is pending');
  assert.match(plan.text, /pool web/);
  assert.match(plan.text, /\/etc\/web/);
});

test('another user on the machine gets nothing without the printed URL: no page, no reads, no secret, no pause', async () => {
  const anonymous = { Cookie: '' };
  const page = await call('GET', '/', anonymous);
  assert.equal(page.status, 401, 'the page itself is refused');
  assert.match(page.body, /open the URL it printed/);
  for (const path of ['/app.js', '/api/snapshot', '/api/events', '/api/pools/web/plan', '/?token=guess']) {
    assert.equal((await call('GET', path, anonymous)).status, 401, `GET ${path}`);
  }
  // Whatever the refused page contained, replayed as a credential, pauses nothing.
  const handed = /content="([^"]+)"/.exec(page.body)?.[1] ?? '';
  const pause = await call('POST', '/api/pools/web/pause', {
    ...anonymous,
    Authorization: `Bearer ${handed}`,
    'Content-Type': 'application/json',
    Origin: `http://127.0.0.1:${port}`,
    'Sec-Fetch-Site': 'same-origin',
  });
  assert.equal(pause.status, 401);
  assert.notEqual((await cluster.getPool('web')).spec.paused, true);
});

test('the printed URL carries the secret; opening it sets a SameSite=Strict, HttpOnly cookie and drops it from the address', async () => {
  const printed = new URL(server.url);
  const secret = printed.searchParams.get('token');
  assert.equal(secret, server.dashboard.secret.value);
  const opened = await call('GET', `${printed.pathname}${printed.search}`, { Cookie: '' });
  assert.equal(opened.status, 303);
  assert.equal(opened.headers.location, '/');
  const [setCookie] = opened.headers['set-cookie'] as string[];
  assert.match(setCookie!, new RegExp(`^${server.dashboard.secret.cookieName}=${secret}; `));
  assert.match(setCookie!, /; HttpOnly/);
  assert.match(setCookie!, /; SameSite=Strict/);
  assert.match(setCookie!, /; Path=\//);
  const page = await call('GET', '/', { Cookie: setCookie!.split(';')[0]! });
  assert.equal(page.status, 200);
  assert.ok(!page.body.includes(secret!));
  // A script may send the secret as a bearer token instead.
  assert.equal(
    (await call('GET', '/api/snapshot', { Cookie: '', Authorization: `Bearer ${secret}` })).status,
    200,
  );
});
