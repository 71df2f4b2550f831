// The dashboard's timeline on a 1,000-node pool, in headless Chromium: the nodes (written to a real
// API server as the controller and agents would have, mid-rollout, in four zones) are drawn as one row
// per zone; a failed node shows in its zone's row; clicking the zone expands it into a row per node.
// Its screenshot is docs/images/dashboard-1000-nodes.png (`npm run screenshots` rewrites it).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  STATE_ANNOTATION,
  STATE_REVISION_ANNOTATION,
} from '../../../src/api/node-protocol.ts';
import { Dashboard, DashboardServer } from '../../../src/cli/dashboard/dashboard-server.ts';
import { UPDATE_STARTED_ANNOTATION } from '../../../src/controller/annotations.ts';
import { nodePath, PATHS } from '../../../src/controller/api-paths.ts';
import { type Chromium, chromiumPath, launchChromium, NO_CHROMIUM } from '../../support/chromium.ts';
import { saveScreenshot } from '../../support/screenshots.ts';
import { CliCluster, fileConfig } from '../support/cli-cluster.ts';

const chromium = chromiumPath();
const NODES = 1000;
const ZONES = ['zone-a', 'zone-b', 'zone-c', 'zone-d'];
const FAILED = new Set([130, 470]);

let cluster: CliCluster;
let server: DashboardServer | undefined;
let browser: Chromium | undefined;

const iso = (ms: number) => new Date(ms).toISOString();

/** Node i of the rollout: the first 600 done but two failed, then 30 applying, the rest waiting. */
async function createNode(i: number, r1: string, r2: string, start: number): Promise<void> {
  const name = `node-${String(i).padStart(4, '0')}`;
  const started = start + i * 500;
  const annotations: Record<string, string> = {};
  let readySince = start - 3_600_000;
  if (FAILED.has(i)) {
    Object.assign(annotations, {
      [CURRENT_REVISION_ANNOTATION]: r1,
      [DESIRED_REVISION_ANNOTATION]: r2,
      [STATE_ANNOTATION]: 'Failed',
      [STATE_REVISION_ANNOTATION]: r2,
      [UPDATE_STARTED_ANNOTATION]: iso(started),
    });
  } else if (i < 600) {
    Object.assign(annotations, {
      [CURRENT_REVISION_ANNOTATION]: r2,
      [DESIRED_REVISION_ANNOTATION]: r2,
      [STATE_ANNOTATION]: 'Done',
      [STATE_REVISION_ANNOTATION]: r2,
      [UPDATE_STARTED_ANNOTATION]: iso(started),
    });
    readySince = started + 8_000;
  } else if (i < 630) {
    Object.assign(annotations, {
      [CURRENT_REVISION_ANNOTATION]: r1,
      [DESIRED_REVISION_ANNOTATION]: r2,
      [STATE_ANNOTATION]: 'Applying',
      [STATE_REVISION_ANNOTATION]: r2,
      [UPDATE_STARTED_ANNOTATION]: iso(started),
    });
  } else {
    Object.assign(annotations, { [CURRENT_REVISION_ANNOTATION]: r1, [DESIRED_REVISION_ANNOTATION]: r1 });
  }
  await cluster.client.create(PATHS.nodes, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { pool: 'fleet', 'topology.kubernetes.io/zone': ZONES[i % ZONES.length]! },
      annotations,
    },
  });
  await cluster.client.patch(
    nodePath(name, 'status'),
    {
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: '',
            lastHeartbeatTime: iso(Date.now()),
            lastTransitionTime: iso(readySince),
          },
        ],
      },
    },
    'strategic',
  );
}

before(async () => {
  if (!chromium) return;
  cluster = await CliCluster.start();
  await cluster.createPool('fleet', {
    nodeSelector: { matchLabels: { pool: 'fleet' } },
    configSelector: { matchLabels: { pool: 'fleet' } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '5%', minReadySeconds: 10 } },
  });
  const r1 = await cluster.createRevision('fleet', 1, { c: fileConfig('/etc/v', '1\n') });
  const r2 = await cluster.createRevision('fleet', 2, { c: fileConfig('/etc/v', '2\n') });
  // 630 nodes started half a second apart: the rollout began 630 × 0.5 s (and a little) ago.
  const start = Date.now() - 330_000;
  await cluster.setPoolStatus('fleet', {
    targetRevision: r2,
    history: [
      { revision: 1, name: r1, startedAt: iso(start - 86_400_000), result: 'Complete' },
      { revision: 2, name: r2, startedAt: iso(start), result: 'InProgress' },
    ],
  });
  for (let i = 0; i < NODES; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, NODES - i) }, (_, k) => createNode(i + k, r1, r2, start)),
    );
  }
  const dashboard = new Dashboard({
    client: cluster.client,
    context: { server: cluster.client.server.origin },
  });
  server = await DashboardServer.listen(dashboard, '127.0.0.1', 0);
  browser = await launchChromium(chromium, { width: 1280, height: 760 });
});

after(async () => {
  await browser?.stop();
  await server?.close();
  await cluster?.stop();
});

const POOL = 'section.pool[data-pool="fleet"]';

test('a 1,000-node pool: a row per zone, failures visible, a zone expands into its nodes', {
  skip: chromium ? false : NO_CHROMIUM,
  timeout: 300_000,
}, async () => {
  const page = browser!.page;
  await page.send('Page.navigate', { url: server!.url });
  const labels = await page.waitFor<string[]>(
    'the zone rows',
    `(() => { const l = [...document.querySelectorAll('${POOL} svg text.label')].map((t) => t.textContent); return l.length ? l : null; })()`,
    60_000,
  );
  assert.deepEqual(labels, ['▸ zone-a (250)', '▸ zone-b (250)', '▸ zone-c (250)', '▸ zone-d (250)']);
  const counts = await page.evaluate<string>(`document.querySelector('${POOL} .counts').textContent`);
  assert.match(counts, /nodes 1000/);
  assert.match(counts, /updated 598/);
  assert.match(counts, /failed 2/);
  // node-0130 (zone-c) and node-0470 (zone-c): the failure shows in zone-c's row, not elsewhere.
  const failedRows = await page.evaluate<string[]>(
    `[...new Set([...document.querySelectorAll('${POOL} svg rect[fill="var(--failed)"]')].map((r) => r.querySelector('title').textContent.split(':')[0]))]`,
  );
  assert.deepEqual(failedRows, ['zone-c (250)']);
  // The end of zone-a's row: its 250 nodes stacked by state, 150 of them done.
  const end = await page.evaluate<Record<string, number>>(
    `(() => { const rs = [...document.querySelectorAll('${POOL} svg rect')].filter((r) => r.querySelector('title').textContent.startsWith('zone-a')); const right = Math.max(...rs.map((r) => Number(r.getAttribute('x')) + Number(r.getAttribute('width')))); const last = rs.filter((r) => Math.abs(Number(r.getAttribute('x')) + Number(r.getAttribute('width')) - right) < 0.01); return Object.fromEntries(last.map((r) => [r.getAttribute('fill'), Number(r.getAttribute('height'))])); })()`,
  );
  const stack = Object.values(end).reduce((a, b) => a + b, 0);
  assert.ok(
    Math.abs((end['var(--done)'] ?? 0) / stack - 150 / 250) < 0.05,
    `done's share of the stack: ${JSON.stringify(end)}`,
  );
  assert.ok(Math.abs((end['var(--waiting)'] ?? 0) / stack - 92 / 250) < 0.05, JSON.stringify(end));
  const rects = await page.evaluate<number>(`document.querySelectorAll('${POOL} svg rect').length`);
  // Drawn per run of equal-looking time buckets, not per node: bounded by the buckets (~350 a row) and
  // the states present, whatever the pool's size (2,450 measured for this pool).
  assert.ok(rects < 3000, `${rects} rects for four rows`);
  saveScreenshot('dashboard-1000-nodes.png', await page.screenshot());

  await page.evaluate(
    `document.querySelector('${POOL} svg text[data-group="zone:zone-c"]').dispatchEvent(new MouseEvent('click', { bubbles: true }))`,
  );
  const expanded = await page.waitFor<string[]>(
    'zone-c expanded',
    `(() => { const l = [...document.querySelectorAll('${POOL} svg text.label')].map((t) => t.textContent); return l.length > 4 ? l : null; })()`,
  );
  assert.equal(expanded.length, 4 + 250);
  assert.equal(expanded[2], '▾ zone-c (250)', 'the expanded group keeps its row, with its nodes below');
  assert.ok(expanded.includes('node-0130 ✕'), 'a failed node is marked');
  assert.ok(expanded.includes('node-0002'));
  assert.deepEqual(page.errors, [], 'no script error in the page');
});
