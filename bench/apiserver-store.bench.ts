// Throughput and latency of the API server's SQLite store, called directly (no HTTP).
// Run: node bench/apiserver-store.bench.ts   (STORE_BENCH_N scales the write counts; default 3000)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cloneJson, deepFreeze } from '../src/apiserver/storage/json-clone.ts';
import { SqliteStore } from '../src/apiserver/storage/sqlite-store.ts';
import type { KubeObject } from '../src/apiserver/storage/types.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const writes = benchNumber('STORE_BENCH_N', 3000, 1000);
const dir = mkdtempSync(join(tmpdir(), 'nodeherd-store-bench-'));

/** A Node object of realistic size (about 4 KB of JSON). */
function nodeObject(name: string, heartbeat = 0): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: '6f1c5c1e-1a2b-4c3d-9e8f-001122334455',
      creationTimestamp: '2024-01-01T00:00:00Z',
      labels: Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [`label.example.com/k${i}`, `value-${i}`]),
      ),
      annotations: Object.fromEntries(
        Array.from({ length: 8 }, (_, i) => [`nodeherd.io/a${i}`, 'x'.repeat(40)]),
      ),
    },
    spec: { podCIDR: '10.0.0.0/24', taints: [{ key: 'a', effect: 'NoSchedule' }] },
    status: {
      conditions: Array.from({ length: 6 }, (_, i) => ({
        type: `C${i}`,
        status: 'True',
        lastHeartbeatTime: new Date(heartbeat * 1000).toISOString(),
        lastTransitionTime: '2024-01-01T00:00:00Z',
        reason: 'KubeletReady',
        message: 'kubelet is posting ready status',
      })),
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: name },
      ],
      capacity: { cpu: '2', memory: '4Gi', pods: '110' },
      allocatable: { cpu: '2', memory: '4Gi', pods: '110' },
      nodeInfo: {
        machineID: 'a'.repeat(32),
        kernelVersion: '6.1.0',
        osImage: 'Debian',
        kubeletVersion: 'v1.30.0',
      },
      images: Array.from({ length: 10 }, (_, i) => ({
        names: [`registry.example.com/img${i}@sha256:${'d'.repeat(64)}`],
        sizeBytes: 123456 + i,
      })),
    },
  };
}

interface Timing {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

function timeEach(count: number, operation: (i: number) => void): Timing {
  const latencies = new Float64Array(count);
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const before = performance.now();
    operation(i);
    latencies[i] = performance.now() - before;
  }
  const elapsed = performance.now() - start;
  latencies.sort();
  return {
    perSecond: Math.round((count / elapsed) * 1000),
    p50Ms: round(latencies[Math.floor(count * 0.5)]!),
    p99Ms: round(latencies[Math.floor(count * 0.99)]!),
  };
}

function timeTotal(operation: () => void): number {
  const start = performance.now();
  operation();
  return round(performance.now() - start);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

const rows: Array<Record<string, string | number>> = [];
function record(name: string, figures: Record<string, number>): void {
  rows.push({ benchmark: name, ...figures });
  // Throughput where there is one, else the operation's total time; no targets (the API server
  // bench holds the end-to-end write target).
  if (figures.perSecond !== undefined)
    reportFigure({ bench: 'apiserver-store', name, value: figures.perSecond, unit: '/s' });
  else if (figures.totalMs !== undefined)
    reportFigure({ bench: 'apiserver-store', name, value: figures.totalMs, unit: 'ms' });
}

function writeBenchmarks(label: string, path: string): void {
  const store = SqliteStore.open(path);
  let revision = store.create('/core/nodes//hot', nodeObject('hot')).revision;
  record(`${label}: update one key (4 KB object)`, {
    ...timeEach(writes, (i) => {
      revision = store.update('/core/nodes//hot', revision, nodeObject('hot', i)).revision;
    }),
  });
  record(`${label}: create distinct keys (4 KB object)`, {
    ...timeEach(writes, (i) => {
      store.create(`/core/nodes//node-${String(i).padStart(6, '0')}`, nodeObject(`node-${i}`));
    }),
  });
  let listeners = 0;
  for (let i = 0; i < 10; i++) store.subscribe(() => listeners++);
  record(`${label}: update one key, 10 listeners`, {
    ...timeEach(writes, (i) => {
      revision = store.update('/core/nodes//hot', revision, nodeObject('hot', i)).revision;
    }),
  });
  store.close();
}

writeBenchmarks('file (WAL, synchronous=FULL)', join(dir, 'writes.db'));
writeBenchmarks(':memory: (no fsync, for comparison)', ':memory:');

// Reads, reopen and compaction over `objects` keys with history.
const objects = 5000;
const readPath = join(dir, 'reads.db');
{
  const store = SqliteStore.open(readPath, { retainRevisions: 0 });
  for (let i = 0; i < objects; i++)
    store.create(`/core/nodes//node-${String(i).padStart(6, '0')}`, nodeObject(`n${i}`));
  const snapshot = store.currentRevision();
  for (let i = 0; i < objects; i++) {
    const key = `/core/nodes//node-${String(i).padStart(6, '0')}`;
    store.update(key, store.get(key)!.revision, nodeObject(`n${i}`, 1));
  }
  record(`get one key (gets/s, from memory)`, {
    perSecond: timeEach(20000, (i) => store.get(`/core/nodes//node-${String(i % objects).padStart(6, '0')}`))
      .perSecond,
  });
  record(`list ${objects} objects, current (ms)`, { totalMs: timeTotal(() => store.list('/core/nodes/')) });
  record(`list ${objects} objects at an older revision (ms, from the log)`, {
    totalMs: timeTotal(() => store.list('/core/nodes/', { atRevision: snapshot })),
  });
  record(`list page of 500 at an older revision (ms)`, {
    totalMs: timeTotal(() =>
      store.list('/core/nodes/', { atRevision: snapshot, limit: 500, afterKey: '/core/nodes//node-002000' }),
    ),
  });
  record(`eventsSince over ${objects} changes (ms)`, {
    totalMs: timeTotal(() => store.eventsSince('/core/nodes/', snapshot)),
  });
  record(`count ${objects} keys (ms)`, { totalMs: timeTotal(() => store.count('/core/nodes/')) });
  record(`compact ${objects} superseded rows (ms)`, { totalMs: timeTotal(() => store.compact()) });
  store.close();
  record(`reopen with ${objects} live objects (ms)`, {
    totalMs: timeTotal(() => SqliteStore.open(readPath).close()),
  });
}

// Why live objects are cached parsed and copied by walking them: the three ways to hand out a fresh copy.
{
  const template = nodeObject('clone');
  const json = JSON.stringify(template);
  const copies = 20000;
  record('fresh copy: JSON.parse of the text (copies/s)', {
    perSecond: timeEach(copies, () => JSON.parse(json)).perSecond,
  });
  record('fresh copy: structuredClone (copies/s)', {
    perSecond: timeEach(copies, () => structuredClone(template)).perSecond,
  });
  record('fresh copy: cloneJson of the parsed object (copies/s)', {
    perSecond: timeEach(copies, () => cloneJson(template)).perSecond,
  });
  // Every write parses its stored text and freezes it; what the freeze costs on top of the parse.
  const parsed = Array.from({ length: copies }, () => JSON.parse(json) as object);
  let next = 0;
  record('deepFreeze of a parsed Node object (objects/s)', {
    perSecond: timeEach(copies, () => deepFreeze(parsed[next++])).perSecond,
  });
}

rmSync(dir, { recursive: true, force: true });
console.log(`node ${process.version}, ${writes} writes per write benchmark`);
console.table(rows);
