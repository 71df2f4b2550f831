// The dashboard holds a long history, in headless Chromium: a pool with ten rollouts behind it, one
// of them rolled back with a failure message of some 40 journal lines (and a path too long to wrap),
// the same message on its Degraded condition and on a node's Event. Read through DevTools as element
// boxes (DOM.getBoxModel), not pixels: the message is clipped to a few lines and expands on a click;
// the history scrolls in a bounded box; the Events and the plan of the pending change stay on the first
// screen; nothing is wider than the window.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Dashboard, DashboardServer } from '../../../src/cli/dashboard/dashboard-server.ts';
import {
  type Chromium,
  type ChromiumPage,
  chromiumPath,
  launchChromium,
  NO_CHROMIUM,
} from '../../support/chromium.ts';
import { CliCluster, fileConfig } from '../support/cli-cluster.ts';

const chromium = chromiumPath();
const VIEWPORT = { width: 1280, height: 900 };
const ROLLOUTS = 10;
const FAILED_ROLLOUT = 7;

/** What a rollback says when the agent attaches the failing unit's journal (issue 36's excerpts). */
const LONG_MESSAGE = [
  'node fleet-2 failed revision 7: unit kubelet.service failed (failed); rolled back to revision 6',
  ...Array.from(
    { length: 40 },
    (_, i) =>
      `Nov 29 06:${String(10 + i).padStart(2, '0')}:01 fleet-2 kubelet[${4100 + i}]: E1129 run.go:74] "command failed" err="failed to validate kubelet flags: maxPods (--max-pods) -1 must not be a negative number"`,
  ),
  `config: /var/lib/nodeherd/revisions/${'a'.repeat(240)}/etc/kubernetes/kubelet.conf.d/90-nodeherd.conf`,
].join('\n');

let cluster: CliCluster;
let server: DashboardServer | undefined;
let browser: Chromium | undefined;

/** A Kubernetes time, to the second, as the controller writes them. */
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

before(async () => {
  if (!chromium) return;
  cluster = await CliCluster.start();
  await cluster.createPool('fleet', {
    nodeSelector: { matchLabels: { pool: 'fleet' } },
    configSelector: { matchLabels: { pool: 'fleet' } },
  });
  const names: string[] = [];
  for (let r = 1; r <= ROLLOUTS; r++)
    names.push(await cluster.createRevision('fleet', r, { c: fileConfig('/etc/v', `${r}\n`) }));
  const start = Date.now() - ROLLOUTS * 3_600_000;
  const history = names.map((name, i) => {
    const revision = i + 1;
    const startedAt = start + i * 3_600_000;
    const failed = revision === FAILED_ROLLOUT;
    return {
      revision,
      name,
      startedAt: iso(startedAt),
      finishedAt: iso(startedAt + 600_000),
      result: failed ? ('RolledBack' as const) : ('Complete' as const),
      ...(failed ? { message: LONG_MESSAGE } : {}),
    };
  });
  const target = names[ROLLOUTS - 1]!;
  await cluster.setPoolStatus('fleet', {
    targetRevision: target,
    currentRevision: target,
    history,
    conditions: [
      {
        type: 'Degraded',
        status: 'True',
        reason: 'NodesFailed',
        message: LONG_MESSAGE,
        lastTransitionTime: iso(Date.now() - 60_000),
        observedGeneration: 1,
      },
    ],
  });
  for (let i = 0; i < 4; i++) {
    await cluster.createNode({
      name: `fleet-${i}`,
      labels: { pool: 'fleet' },
      current: target,
      state: 'Done',
    });
  }
  await cluster.client.create('/api/v1/namespaces/default/events', {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'fleet-2.update-failed', namespace: 'default' },
    involvedObject: { kind: 'Node', name: 'fleet-2' },
    reason: 'UpdateFailed',
    type: 'Warning',
    // An Event's message holds at most 1,024 characters.
    message: LONG_MESSAGE.slice(0, 1000),
    firstTimestamp: iso(Date.now() - 120_000),
    lastTimestamp: iso(Date.now() - 120_000),
    count: 1,
  });
  const dashboard = new Dashboard({
    client: cluster.client,
    context: { server: cluster.client.server.origin },
  });
  server = await DashboardServer.listen(dashboard, '127.0.0.1', 0);
  browser = await launchChromium(chromium, VIEWPORT);
});

after(async () => {
  await browser?.stop();
  await server?.close();
  await cluster?.stop();
});

const POOL = 'section.pool[data-pool="fleet"]';

interface Box {
  top: number;
  bottom: number;
  left: number;
  right: number;
  height: number;
}

/** The border box of the first element `selector` matches, from DevTools' DOM domain (viewport px). */
async function box(page: ChromiumPage, selector: string): Promise<Box> {
  const { root } = (await page.send('DOM.getDocument', { depth: 0 })) as { root: { nodeId: number } };
  const { nodeId } = (await page.send('DOM.querySelector', { nodeId: root.nodeId, selector })) as {
    nodeId: number;
  };
  assert.ok(nodeId, `no element ${selector}`);
  const { model } = (await page.send('DOM.getBoxModel', { nodeId })) as {
    model: { border: number[]; height: number };
  };
  const xs = [0, 2, 4, 6].map((i) => model.border[i]!);
  const ys = [1, 3, 5, 7].map((i) => model.border[i]!);
  return {
    top: Math.min(...ys),
    bottom: Math.max(...ys),
    left: Math.min(...xs),
    right: Math.max(...xs),
    height: model.height,
  };
}

test('ten rollouts and a long failure message: the history scrolls in its box, Events and the plan stay in view', {
  skip: chromium ? false : NO_CHROMIUM,
  timeout: 120_000,
}, async () => {
  const page = browser!.page;
  await page.send('Page.navigate', { url: server!.url });
  await page.waitFor(
    'the ten rollouts and the Event',
    `document.querySelectorAll('${POOL} [data-section="history"] tbody tr').length === ${ROLLOUTS} && document.querySelectorAll('${POOL} [data-section="events"] tbody tr').length === 1`,
    60_000,
  );
  await page.waitFor(
    'the plan',
    `document.querySelector('${POOL} pre.plan').textContent !== 'reading…'`,
    60_000,
  );

  // The failure message: a few lines, and it says it can be expanded.
  const message = `${POOL} [data-section="history"] .message[data-message]`;
  const lineHeight = await page.evaluate<number>(
    `parseFloat(getComputedStyle(document.querySelector('${message}')).lineHeight)`,
  );
  const clipped = await box(page, message);
  assert.ok(clipped.height <= 3.5 * lineHeight, `the message is clipped: ${clipped.height}px`);
  assert.equal(
    await page.evaluate(`document.querySelector('${message}').getAttribute('aria-expanded')`),
    'false',
  );
  assert.equal(
    await page.evaluate<string>(`document.querySelector('${message}').textContent`),
    LONG_MESSAGE,
    'the whole message is in the page (clipped, not cut)',
  );

  // The history: ten rows in a bounded box that scrolls; Events and the plan on the first screen.
  const history = await box(page, `${POOL} [data-section="history"] .scroll`);
  assert.ok(history.height <= 0.4 * VIEWPORT.height, `the history's box: ${history.height}px`);
  assert.ok(
    await page.evaluate<boolean>(
      `(() => { const s = document.querySelector('${POOL} [data-section="history"] .scroll'); return s.scrollHeight > s.clientHeight; })()`,
    ),
    'the history scrolls in its box',
  );
  const events = await box(page, `${POOL} [data-section="events"] h3`);
  const plan = await box(page, `${POOL} pre.plan`);
  assert.ok(events.bottom <= VIEWPORT.height, `the Events heading is below the fold: ${events.top}px`);
  assert.ok(plan.top < VIEWPORT.height, `the plan is below the fold: ${plan.top}px`);
  const conditions = await box(page, `${POOL} [data-section="conditions"] .message[data-message]`);
  assert.ok(
    conditions.height <= 3.5 * lineHeight,
    `the condition's message is clipped: ${conditions.height}px`,
  );
  const widest = await page.evaluate<number>('document.documentElement.scrollWidth');
  assert.ok(widest <= VIEWPORT.width, `the page is ${widest}px wide in a ${VIEWPORT.width}px window`);

  // A click expands the message in place (the history's box still bounds it); another folds it.
  await page.evaluate(`document.querySelector('${message}').click()`);
  const open = await box(page, message);
  assert.ok(open.height > 10 * lineHeight, `expanded: ${open.height}px`);
  assert.equal(
    await page.evaluate(`document.querySelector('${message}').getAttribute('aria-expanded')`),
    'true',
  );
  const historyOpen = await box(page, `${POOL} [data-section="history"] .scroll`);
  assert.ok(Math.abs(historyOpen.height - history.height) < 1, 'the box keeps its height');
  assert.ok((await box(page, `${POOL} pre.plan`)).top < VIEWPORT.height, 'the plan stays in view');
  await page.evaluate(`document.querySelector('${message}').click()`);
  assert.ok((await box(page, message)).height <= 3.5 * lineHeight, 'folded again');
  assert.deepEqual(page.errors, [], 'no script error in the page');
});
