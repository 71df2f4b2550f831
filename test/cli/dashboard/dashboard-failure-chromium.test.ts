// issue 36 in a real browser: after the README's "break it on purpose" (maxPods -1 in `nodeherd up`'s
// setup, here in this process), the dashboard's "Why it failed" names the canary with the kubelet's own
// words, unfolds to the journal lines its agent sent, keeps them open across the page's redraws, and
// the canary's timeline row carries a failed mark. Headless Chromium (Debian's chromium); skips without.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { serveUpDashboard, type UpDashboard } from '../../../src/cli/dashboard/up-dashboard.ts';
import { LocalCluster } from '../../../src/up/local-cluster.ts';
import { KUBE_YAML } from '../../../src/util/kube-yaml.ts';
import { type Chromium, chromiumPath, launchChromium, NO_CHROMIUM } from '../../support/chromium.ts';
import { REPO_ROOT } from '../support/cli-cluster.ts';

const chromium = chromiumPath();
const GROUP = '/apis/nodeherd.io/v1alpha1';
const REASON = 'maxPods (--max-pods) -1 must not be a negative number';

let stateDir: string;
let cluster: LocalCluster | undefined;
let dashboard: UpDashboard | undefined;
let browser: Chromium | undefined;

before(async () => {
  if (!chromium) return;
  stateDir = mkdtempSync(join(tmpdir(), 'nodeherd-dashboard-failure-'));
  cluster = await LocalCluster.start({ stateDir, nodes: 3, port: 0, nodeApiPort: 0 });
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

test('the dashboard says why the canary failed, in the kubelet’s words, and shows its failed mark', {
  skip: chromium ? false : NO_CHROMIUM,
  timeout: 300_000,
}, async () => {
  const page = browser!.page;
  await page.send('Page.navigate', { url: dashboard!.url });
  await page.waitFor('the sample pool', `document.querySelector('${POOL}') ? true : undefined`, 120_000);

  const bad = parse(
    readFileSync(join(REPO_ROOT, 'examples/break-it/nodeconfig-bad-max-pods.yaml'), 'utf8'),
    KUBE_YAML,
  ) as { spec: unknown };
  await cluster!.admin.patch(`${GROUP}/nodeconfigs/workers-base`, { spec: bad.spec });

  const summary = await page.waitFor<string>(
    'Why it failed',
    `(() => { const s = document.querySelector('${POOL} .failures summary'); return s && s.textContent.includes(${JSON.stringify(REASON)}) ? s.textContent : undefined; })()`,
    120_000,
  );
  assert.match(summary, /unit kubelet\.service failed \(failed\)/);
  const node = await page.evaluate<string>(
    `document.querySelector('${POOL} .failures details').dataset.node`,
  );

  await page.evaluate(`document.querySelector('${POOL} .failures summary').click(), 1`);
  const excerpt = await page.evaluate<string>(
    `document.querySelector('${POOL} .failures pre.excerpt').textContent`,
  );
  assert.match(excerpt, /^journalctl -u kubelet\.service -n 20:\n/);
  assert.ok(excerpt.includes(REASON), excerpt);
  // The page is redrawn on every snapshot: the excerpt stays unfolded.
  const before = await page.evaluate<string>(`document.getElementById('server').textContent`);
  await page.waitFor(
    'a redraw',
    `document.getElementById('server').textContent !== ${JSON.stringify(before)} ? true : undefined`,
    30_000,
  );
  assert.equal(
    await page.evaluate<boolean>(`document.querySelector('${POOL} .failures details').open`),
    true,
  );

  // The canary's row of the timeline has a failed mark (drawn in the failed state's colour).
  const marks = await page.evaluate<number>(
    `[...document.querySelectorAll('${POOL} svg rect')].filter((r) => (r.getAttribute('fill') || '').includes('--failed')).length`,
  );
  assert.ok(marks > 0, `no failed mark on ${node}'s row`);
  assert.deepEqual(page.errors, []);
});
