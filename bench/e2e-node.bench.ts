// Benchmark of a real node: a Debian bookworm container booted with systemd-nspawn (the e2e suite's
// machinery), bootstrapped by nodeherd-init against the embedded control plane on this host. Prints
// its figures; not a test. Needs root, systemd-nspawn, debootstrap (test/e2e/setup-host.sh).
//
//   node bench/e2e-node.bench.ts
//
// 1. Artefacts: the agent bundle, the gzipped runtime, the unpacked runtime.
// 2. Container boot to agent Ready: systemd-nspawn spawned → systemd up → nodeherd-init done →
//    the agent reports its Node (state annotation written), over BENCH_BOOTS boots (default 3).
// 3. Apply on real systemd of a config with 50 files and 10 units: first apply (everything added,
//    enabled, started), then a change of every file and unit (50 writes, 10 restarts), then a change
//    of one file. Time from the desired-revision annotation to the agent's Done, and the agent's own
//    apply histogram. The units are `sleep infinity` services whose start completes at once, so the
//    figures are nodeherd's and systemd's work, not the units' own start time (which would add
//    to any tool's apply).
// 4. The agent's RSS on the node, idle after start and after the applies (VmRSS, VmHWM).

import { readFile } from 'node:fs/promises';
import type { NodeConfigSpec } from '../src/api/types.ts';
import { Container } from '../test/e2e/support/container.ts';
import { ControlPlane } from '../test/e2e/support/control-plane.ts';
import { e2eSkipReason, waitFor } from '../test/e2e/support/host.ts';
import { freePort } from '../test/e2e/support/ports.ts';
import { ensureRootfs } from '../test/e2e/support/rootfs.ts';
import { serviceUnit } from '../test/e2e/support/units.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const BOOTS = benchNumber('BENCH_BOOTS', 3, 1);
const REPEATS = benchNumber('BENCH_REPEATS', 3, 1);
const AGENT_UNIT = 'nodeherd-agent.service';

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
const ms = (value: number) => `${value.toFixed(0)} ms`;
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

function spec(generation: number): NodeConfigSpec {
  const files = Array.from({ length: 50 }, (_, i) => ({
    path: `/etc/bench/unit-${i % 10}/file-${i}.conf`,
    mode: 0o640,
    content: { inline: { data: `generation ${generation}\nfile ${i}\n${'x'.repeat(512)}\n` } },
  }));
  const units = Array.from({ length: 10 }, (_, u) => ({
    name: `bench-${u}.service`,
    content: serviceUnit(`bench ${u} generation ${generation}`),
    filePaths: files.filter((_, i) => i % 10 === u).map((f) => f.path),
  }));
  return { files, units };
}

/** The config of `generation` with only its first file edited (`edit` tells the edits apart). */
function oneFileChanged(generation: number, edit: number): NodeConfigSpec {
  const changed = spec(generation);
  changed.files![0]!.content = { inline: { data: `generation ${generation}, edit ${edit}\n` } };
  return changed;
}

async function agentMemory(node: Container): Promise<{ rss: number; hwm: number }> {
  const pid = (await node.show(AGENT_UNIT, ['MainPID'])).MainPID;
  const status = await node.execChecked(['cat', `/proc/${pid}/status`]);
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** The agent's apply histogram (seconds), summed, from its /metrics endpoint inside the node. */
async function applySeconds(node: Container, port: number): Promise<{ sum: number; count: number }> {
  const text = await node.execChecked(['curl', '-fsS', `http://127.0.0.1:${port}/metrics`]);
  let sum = 0;
  let count = 0;
  for (const line of text.split('\n')) {
    const match =
      /^nodeherd_agent_apply_duration_seconds_(sum|count)\{[^}]*result="success"[^}]*\} (\S+)$/.exec(line);
    if (match?.[1] === 'sum') sum += Number(match[2]);
    if (match?.[1] === 'count') count += Number(match[2]);
  }
  return { sum, count };
}

async function main(): Promise<void> {
  const skip = e2eSkipReason();
  if (skip) {
    process.stdout.write(`e2e-node bench skipped: ${skip}\n`);
    return;
  }
  const rootfs = await ensureRootfs();
  const cp = await ControlPlane.start();
  const lines: string[] = [];
  const print = (line: string) => {
    lines.push(line);
    process.stdout.write(`${line}\n`);
  };
  try {
    const { agent, runtime } = cp.artefacts;
    print('artefacts');
    print(`  nodeherd-agent.mjs  ${mb(agent.size)}`);
    if (runtime)
      print(
        `  node.gz             ${mb(runtime.size)} (${mb(runtime.binarySize)} unpacked, ${runtime.nodeVersion})`,
      );

    const boots: { boot: number; init: number; ready: number }[] = [];
    let node: Container | undefined;
    let metricsPort = 0;
    for (let i = 0; i < BOOTS; i++) {
      const name = `nh-bench-${i}`;
      const token = await cp.registerNode(name);
      const t0 = performance.now();
      const container = await Container.boot({ name, rootfs: rootfs.path });
      const booted = performance.now();
      metricsPort = await freePort();
      const init = await cp.runInit(
        container,
        cp.initArgs(name, token, ['--agent-env', `NODEHERD_METRICS_ADDRESS=127.0.0.1:${metricsPort}`]),
      );
      if (init.code !== 0) throw new Error(`nodeherd-init failed: ${init.stderr}`);
      const initDone = performance.now();
      await waitFor(
        `${name} Ready`,
        async () =>
          (await cp.getNode(name)).metadata?.annotations?.['nodeherd.io/state'] ? true : undefined,
        60_000,
        10,
      );
      const ready = performance.now();
      boots.push({ boot: booted - t0, init: initDone - booted, ready: ready - t0 });
      if (i < BOOTS - 1) await container.stop();
      else node = container;
    }
    print(`container boot to agent Ready (${BOOTS} boots, median)`);
    print(`  systemd-nspawn → systemd running   ${ms(median(boots.map((b) => b.boot)))}`);
    print(`  nodeherd-init (download, verify, install, start)   ${ms(median(boots.map((b) => b.init)))}`);
    print(`  total: spawn → Node reports agent state   ${ms(median(boots.map((b) => b.ready)))}`);
    print(`  each: ${boots.map((b) => ms(b.ready)).join(', ')}`);
    reportFigure({
      bench: 'e2e-node',
      name: 'container spawn → Node reports agent state (median)',
      value: median(boots.map((b) => b.ready)),
      unit: 'ms',
      note: `${BOOTS} boots`,
    });

    const c = node!;
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const idle = await agentMemory(c);
    print(`agent RSS on the node, idle: ${mb(idle.rss)}`);
    reportFigure({
      bench: 'e2e-node',
      name: 'agent RSS on a real node, idle',
      value: idle.rss / 1e6,
      unit: 'MB',
      target: { op: '<=', value: 50 },
    });

    const timed = async (what: string, config: NodeConfigSpec) => {
      const revision = await cp.createRevision('bench', config);
      const before = await applySeconds(c, metricsPort);
      const started = performance.now();
      await cp.setDesired(c.name, revision.metadata.name);
      await cp.waitForApplied(c.name, revision.metadata.name, 120_000);
      const wall = performance.now() - started;
      const after = await applySeconds(c, metricsPort);
      const agentMs = after.count > before.count ? (after.sum - before.sum) * 1000 : Number.NaN;
      return { what, wall, agentMs };
    };
    const results: { what: string; wall: number; agentMs: number }[] = [];
    let generation = 0;
    results.push(await timed('first apply: 50 files, 10 units added, enabled, started', spec(++generation)));
    for (let i = 0; i < REPEATS; i++) {
      results.push(await timed('all 50 files and 10 units changed: 10 restarts', spec(++generation)));
    }
    for (let i = 0; i < REPEATS; i++) {
      results.push(await timed('one file changed: 1 restart', oneFileChanged(generation, i)));
    }
    print('apply on real systemd (desired-revision set → Done reported; agent: its apply histogram)');
    for (const what of new Set(results.map((r) => r.what))) {
      const rows = results.filter((r) => r.what === what);
      print(
        `  ${what}: ${ms(median(rows.map((r) => r.wall)))} (agent ${ms(median(rows.map((r) => r.agentMs)))}) over ${rows.length}`,
      );
      reportFigure({
        bench: 'e2e-node',
        name: `apply on real systemd, ${what} (median, annotation → Done)`,
        value: median(rows.map((r) => r.wall)),
        unit: 'ms',
        note: `agent's own apply ${ms(median(rows.map((r) => r.agentMs)))}, ${rows.length} runs`,
      });
    }
    const busy = await agentMemory(c);
    print(`agent RSS on the node after the applies: ${mb(busy.rss)} (peak ${mb(busy.hwm)})`);
    const unit = await readFile(c.hostPath(`/etc/systemd/system/${AGENT_UNIT}`), 'utf8');
    print(`agent command: ${/^ExecStart=(.*)$/m.exec(unit)?.[1]}`);
    await c.stop();
  } finally {
    await cp.stop();
  }
}

await main();
