// Durability of the API server process: 8 concurrent HTTPS clients create, update and delete ConfigMaps;
// the server is SIGKILLed mid-stream and restarted on the same data dir, three times. Every
// acknowledged (2xx) write must be there afterwards with the acknowledged resourceVersion and content;
// the only allowed difference is the one request each client had in flight when the server died.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type AcknowledgedWrite,
  acknowledge,
  assertCoversAcknowledged,
  checkKeyAfterKill,
  configMapWrite,
  untilMidStream,
  type WriteOp,
} from './acknowledged-writes.ts';
import { type AdminClient, adminClient, KilledServer } from './server-process.ts';

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
    keys.set(key, acknowledge(write, res, `client ${client} `));
    acked.push(write);
  }
}

const server = new KilledServer('nodeherd-durability-');

test('every acknowledged write survives SIGKILL of the API server during concurrent writes', async () => {
  const { dataDir } = server;
  await server.start();
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
    const clients = Array.from({ length: CLIENTS }, () => adminClient(dataDir, server.process.url));
    const running = clients.map((http, c) => runClient(c, http, keys[c]!, acked, inFlight, () => ++seq));

    // Let the writes flow, then kill -9 in the middle of them.
    await untilMidStream(() => acked.length - ackedBefore, 300, 10_000, { minMs: 50, jitterMs: 200 });
    assert.equal(inFlight.size > 0, true, 'writes were in flight at the kill');
    await server.kill();
    await Promise.all(running);
    for (const http of clients) http.close();
    const roundAcks = acked.length - ackedBefore;
    assert.ok(roundAcks >= 300, `round ${round}: ${roundAcks} acknowledged writes before the kill`);

    const http = adminClient(dataDir, (await server.start()).url);
    try {
      const list = await http.request('GET', BASE);
      const maxAcked = assertCoversAcknowledged(
        list,
        acked,
        'the revision after restart covers every acknowledged one',
      );
      const stored = new Map<string, any>(list.json.items.map((i: any) => [i.metadata.name, i]));

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
