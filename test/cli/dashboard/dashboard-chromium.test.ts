// The dashboard in a real browser: headless Chromium (Debian's chromium) against `nodeherd up`'s
// setup in this process (embedded API server, simulated nodes running the real agent, the rollout
// controller) with the dashboard mounted where `up` mounts it. The page loads and shows the sample
// pool, follows a rollout live (a node applying, then every node done on the new revision), and its
// Pause button pauses the pool, read back through the API. The screenshots in docs/images/ come from
// this test (docs/dashboard.md shows them); `npm run screenshots` rewrites them, `npm test` does not.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { NodeConfig, NodeConfigPool } from '../../../src/api/types.ts';
import { serveUpDashboard, type UpDashboard } from '../../../src/cli/dashboard/up-dashboard.ts';
import { nodeConfigPoolPath, PATHS } from '../../../src/controller/api-paths.ts';
import { LocalCluster } from '../../../src/up/local-cluster.ts';
import { type Chromium, chromiumPath, launchChromium, NO_CHROMIUM } from '../../support/chromium.ts';
import { saveScreenshot } from '../../support/screenshots.ts';

const chromium = chromiumPath();
const NODES = 4;

let stateDir: string;
let cluster: LocalCluster | undefined;
let dashboard: UpDashboard | undefined;
let browser: Chromium | undefined;

before(async () => {
  if (!chromium) return;
  stateDir = mkdtempSync(join(tmpdir(), 'nodeherd-dashboard-'));
  cluster = await LocalCluster.start({ stateDir, nodes: NODES, port: 0, nodeApiPort: 0 });
  dashboard = await serveUpDashboard(cluster);
  browser = await launchChromium(chromium);
});

after(async () => {
  await browser?.stop();
  await dashboard?.stop();
  await cluster?.stop();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

const POOL = 'section.pool[data-pool="workers"]';

/** The page's counts line, e.g. { nodes: 4, updated: 2, ... }. */
const COUNTS = `Object.fromEntries([...document.querySelectorAll('${POOL} .counts > span:not(.badge)')].map((s) => [s.firstChild.textContent.trim(), Number(s.querySelector('b').textContent)]))`;

async function screenshot(name: string): Promise<void> {
  saveScreenshot(name, await browser!.page.screenshot());
}

test('the dashboard of nodeherd up in Chromium: pools, a rollout followed live, the Pause button', {
  skip: chromium ? false : NO_CHROMIUM,
  timeout: 300_000,
}, async () => {
  const page = browser!.page;
  const admin = cluster!.admin;
  // The URL `up` prints carries the dashboard's secret; the browser keeps it as a cookie from then on.
  assert.match(dashboard!.url, /^http:\/\/127\.0\.0\.1:\d+\/dashboard\/\?token=[\w-]{43}$/);
  await page.send('Page.navigate', { url: dashboard!.url });

  // The sample pool, every node on its first revision.
  const first = await page.waitFor<string>(
    'the sample pool on every node',
    `(() => { const c = ${COUNTS}; const h = document.querySelector('${POOL} .pool-head'); return c.nodes === ${NODES} && c.updated === ${NODES} && h && /target \\S+ \\(revision 1\\)/.test(h.textContent) ? h.textContent : ''; })()`,
    120_000,
  );
  assert.match(first, /pool workers/);
  assert.match(first, /RollingUpdate/);
  assert.equal(
    await page.evaluate<string>(`document.getElementById('connection').textContent`),
    'live',
    'the page follows the server-sent events',
  );

  // A change: the controller renders revision 2 and rolls it out node by node; the page follows.
  const config = await admin.get<NodeConfig>(`${PATHS.nodeConfigs}/workers-base`);
  const data = config.spec.files![0]!.content!.inline!.data!;
  await admin.patch(
    `${PATHS.nodeConfigs}/workers-base`,
    [
      {
        op: 'replace',
        path: '/spec/files/0/content/inline/data',
        value: data.replace('maxPods: 110', 'maxPods: 100'),
      },
    ],
    'json',
  );
  await page.waitFor(
    'revision 2 as the target, a node on its way',
    `(() => { const h = document.querySelector('${POOL} .pool-head'); return h && /\\(revision 2\\)/.test(h.textContent) && document.querySelector('${POOL} svg rect[fill="var(--applying)"], ${POOL} svg rect[fill="var(--notready)"], ${POOL} svg rect[fill="var(--soaking)"]'); })()`,
    120_000,
  );
  const rows = await page.evaluate<string[]>(
    `[...document.querySelectorAll('${POOL} svg text.label')].map((t) => t.textContent)`,
  );
  assert.equal(rows.length, NODES, `a row per node: ${rows.join(', ')}`);
  await page.waitFor('a node done on revision 2', `(${COUNTS}).updated >= 1`, 120_000);
  await screenshot('dashboard-rollout.png');
  await page.waitFor('two nodes on revision 2', `(${COUNTS}).updated >= 2`, 120_000);

  // Pause, from the page: the pool is paused (read through the API) and the page says so.
  await page.evaluate(`document.querySelector('${POOL} button[data-action="pause"]').click()`);
  const deadline = performance.now() + 30_000;
  while ((await admin.get<NodeConfigPool>(nodeConfigPoolPath('workers'))).spec.paused !== true) {
    assert.ok(performance.now() < deadline, 'the Pause button did not pause the pool');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await page.waitFor('the PAUSED badge', `document.querySelector('${POOL} .badge.paused')`, 30_000);
  await page.waitFor(
    'the pause on the timeline',
    `document.querySelector('${POOL} svg rect.paused')`,
    30_000,
  );
  await page.waitFor('the notice', `/paused/.test(document.getElementById('notice').textContent)`, 10_000);
  // Nodes in flight finish; no other starts.
  await page.waitFor(
    'the node in flight to finish',
    `(() => { const c = ${COUNTS}; return c.applying === 0 && c.unavailable === 0 && c.ready === c.updated; })()`,
    60_000,
  );
  const settled = await page.evaluate<Record<string, number>>(COUNTS);
  assert.ok(settled.updated! < NODES, `paused with nodes left: ${JSON.stringify(settled)}`);
  // Longer than a node's update and soak: paused, none starts.
  await new Promise((resolve) => setTimeout(resolve, 8_000));
  assert.equal((await page.evaluate<Record<string, number>>(COUNTS)).updated, settled.updated);
  await screenshot('dashboard-paused.png');

  // Resume, from the page; the rollout finishes and every node's row ends done.
  await page.waitFor(
    'the Resume button enabled',
    `!document.querySelector('${POOL} button[data-action="resume"]').disabled`,
  );
  await page.evaluate(`document.querySelector('${POOL} button[data-action="resume"]').click()`);
  await page.waitFor(
    'every node on revision 2',
    `(${COUNTS}).updated === ${NODES} && (${COUNTS}).ready === ${NODES}`,
    180_000,
  );
  assert.equal((await admin.get<NodeConfigPool>(nodeConfigPoolPath('workers'))).spec.paused, false);
  await page.waitFor(
    'every row ending done',
    `[...document.querySelectorAll('${POOL} svg')].length === 1 && (() => { const svg = document.querySelector('${POOL} svg'); const ends = new Map(); for (const r of svg.querySelectorAll('rect:not(.paused)')) { const y = r.getAttribute('y'); const x = Number(r.getAttribute('x')) + Number(r.getAttribute('width')); if (!ends.has(y) || ends.get(y).x < x) ends.set(y, { x, fill: r.getAttribute('fill') }); } return ends.size === ${NODES} && [...ends.values()].every((e) => e.fill === 'var(--done)'); })()`,
    60_000,
  );
  const plan = await page.waitFor<string>(
    'the plan of the pending change',
    `(() => { const t = document.querySelector('${POOL} pre.plan').textContent; return t !== 'reading…' ? t : ''; })()`,
  );
  assert.match(plan, /No pending change|pool workers/);
  await screenshot('dashboard-complete.png');
  assert.deepEqual(page.errors, [], 'no script error in the page');
});
