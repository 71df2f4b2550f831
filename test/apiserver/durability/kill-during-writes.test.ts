// Durability of the API server process: 8 concurrent HTTPS clients create, update and delete ConfigMaps;
// the server is SIGKILLed mid-stream and restarted on the same data dir, three times. Every
// acknowledged (2xx) write must be there afterwards with the acknowledged resourceVersion and content;
// the only allowed difference is the one request each client had in flight when the server died.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  type AcknowledgedWrite,
  checkKeyAfterKill,
  configMapWrite,
  type WriteOp,
} from './acknowledged-writes.ts';
import {
  type AdminClient,
  adminClient,
  killServerProcess,
  type ServerProcess,
  startServerProcess,
} from './server-process.ts';

const CLIENTS = 8;
const KEYS_PER_CLIENT = 5;
const ROUNDS = 3;
const NAMESPACE = 'default';
const BASE = `/api/v1/namespaces/${NAMESPACE}/configmaps`;

interface Write extends AcknowledgedWrite {
  client: number;
  key: string;
}

interface KeyState {
  exists: boolean;
  rv: string;
}

const dataFor = (client: number, key: string, seq: number) => ({
  client: String(client),
  key,
  seq: String(seq),
  // Some bulk, so writes are not trivially small.
  filler: 'x'.repeat(200 + ((seq * 37) % 800)),
});

/** One client: writes its own keys sequentially until the server goes away. */
async function runClient(
  client: number,
  http: AdminClient,
  keys: Map<string, KeyState>,
  acked: Write[],
  inFlight: Map<number, Write>,
  nextSeq: () => number,
): Promise<void> {
  const names = [...keys.keys()];
  for (let n = 0; ; n++) {
    const key = names[(n * 3 + client) % names.length]!;
    const state = keys.get(key)!;
    const op: WriteOp = !state.exists ? 'create' : (n + client) % 7 === 0 ? 'delete' : 'update';
    const write: Write = { client, key, op, seq: nextSeq() };
    inFlight.set(client, write);
    let res: { status: number; json: any };
    const { method, path, body } = configMapWrite(BASE, op, key, state.rv, dataFor(client, key, write.seq));
    try {
      res = await http.request(method, path, body);
    } catch {
      // The server died with this request in flight: it may or may not have committed.
      return;
    }
    inFlight.delete(client);
    if (res.status < 200 || res.status >= 300) {
      throw new Error(`client ${client} ${op} ${key}: HTTP ${res.status} ${JSON.stringify(res.json)}`);
    }
    // Creates and updates answer the object, carrying the write's revision.
    // A ConfigMap DELETE answers a Status (kube's registry), which carries no resourceVersion.
    if (op !== 'delete') write.rv = Number(res.json.metadata.resourceVersion);
    acked.push(write);
    if (op === 'delete') keys.set(key, { exists: false, rv: '' });
    else keys.set(key, { exists: true, rv: res.json.metadata.resourceVersion });
  }
}

let dataDir: string | undefined;
let server: ServerProcess | undefined;
after(async () => {
  await killServerProcess(server);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('every acknowledged write survives SIGKILL of the API server during concurrent writes', async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'nodeherd-durability-'));
  server = await startServerProcess(dataDir);
  const port = server.port;
  const keys: Map<string, KeyState>[] = [];
  for (let c = 0; c < CLIENTS; c++) {
    const mine = new Map<string, KeyState>();
    for (let k = 0; k < KEYS_PER_CLIENT; k++) mine.set(`c${c}-k${k}`, { exists: false, rv: '' });
    keys.push(mine);
  }
  const acked: Write[] = [];
  let seq = 0;
  let inFlightCommitted = 0;
  let inFlightLost = 0;

  for (let round = 0; round < ROUNDS; round++) {
    const ackedBefore = acked.length;
    const inFlight = new Map<number, Write>();
    const clients = Array.from({ length: CLIENTS }, () => adminClient(dataDir!, server!.url));
    const running = clients.map((http, c) => runClient(c, http, keys[c]!, acked, inFlight, () => ++seq));

    // Let the writes flow, then kill -9 in the middle of them.
    const deadline = Date.now() + 10_000;
    while (acked.length - ackedBefore < 300 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 200));
    assert.equal(inFlight.size > 0, true, 'writes were in flight at the kill');
    server.child.kill('SIGKILL');
    assert.equal(await server.exited, 'SIGKILL');
    await Promise.all(running);
    for (const http of clients) http.close();
    const roundAcks = acked.length - ackedBefore;
    assert.ok(roundAcks >= 300, `round ${round}: ${roundAcks} acknowledged writes before the kill`);

    server = await startServerProcess(dataDir, port);
    const http = adminClient(dataDir, server.url);
    try {
      const list = await http.request('GET', BASE);
      assert.equal(list.status, 200);
      const stored = new Map<string, any>(list.json.items.map((i: any) => [i.metadata.name, i]));
      const maxAcked = Math.max(...acked.filter((w) => w.rv !== undefined).map((w) => w.rv!));
      assert.ok(
        Number(list.json.metadata.resourceVersion) >= maxAcked,
        'the revision after restart covers every acknowledged one',
      );

      for (let c = 0; c < CLIENTS; c++) {
        const pending = inFlight.get(c);
        for (const key of keys[c]!.keys()) {
          const history = acked.filter((w) => w.key === key);
          // resourceVersions acknowledged for one key only go up (deletes answer none).
          const versioned = history.filter((w) => w.rv !== undefined);
          for (let i = 1; i < versioned.length; i++)
            assert.ok(versioned[i]!.rv! > versioned[i - 1]!.rv!, `${key}: ${JSON.stringify(history)}`);
          const object = stored.get(key);
          const pendingHere = pending?.key === key ? pending : undefined;
          const outcome = checkKeyAfterKill(key, object, history.at(-1), pendingHere, (seq) =>
            dataFor(c, key, seq),
          );
          if (outcome === 'committed') inFlightCommitted++;
          if (outcome === 'lost') inFlightLost++;
          // Continue from what the server holds now.
          keys[c]!.set(
            key,
            object === undefined
              ? { exists: false, rv: '' }
              : { exists: true, rv: object.metadata.resourceVersion },
          );
        }
      }

      // Writes continue the revision sequence after the restart.
      const probe = await http.request('POST', BASE, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `probe-${round}` },
      });
      assert.equal(probe.status, 201);
      assert.ok(Number(probe.json.metadata.resourceVersion) > maxAcked);
    } finally {
      http.close();
    }
  }
  assert.ok(acked.length >= ROUNDS * 300);
  // Both outcomes of an in-flight write are legal; report them for the record.
  process.stdout.write(
    `# durability: ${acked.length} acknowledged writes over ${ROUNDS} kills; in flight at a kill: ${inFlightCommitted} committed, ${inFlightLost} not\n`,
  );
});
