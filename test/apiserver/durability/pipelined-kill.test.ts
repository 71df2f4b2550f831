// Durability with group commit: 4 clients, each on ONE connection with many requests pipelined on it
// (so the server commits many of them in one transaction), create, update (CAS on resourceVersion) and
// delete ConfigMaps; the server is SIGKILLed mid-stream and restarted on the same data dir, twice. Every
// acknowledged write must be there afterwards with its resourceVersion and content; a key may differ only
// by the one request that was in flight on it when the server died.

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
import { PipelinedConnection } from './pipelined-client.ts';
import { adminCredential, KilledServer } from './server-process.ts';

const CLIENTS = 4;
/** Requests on the wire per connection: one per lane, each lane with keys of its own. */
const DEPTH = 8;
const KEYS_PER_LANE = 2;
const ROUNDS = 2;
const ACKS_PER_ROUND = 400;
const BASE = '/api/v1/namespaces/default/configmaps';

interface Write extends AcknowledgedWrite {
  key: string;
}

interface KeyState {
  exists: boolean;
  rv: string;
  /** The last acknowledged write, if any. */
  last?: Write;
  /** The write on the wire when the connection died, if any. */
  inFlight?: Write;
}

const dataFor = (key: string, seq: number) => ({
  key,
  seq: String(seq),
  filler: 'y'.repeat(100 + (seq % 400)),
});

/** One lane: writes its keys one request at a time, sharing the connection with the other lanes. */
async function runLane(
  pipe: PipelinedConnection,
  keys: string[],
  states: Map<string, KeyState>,
  acked: Write[],
  nextSeq: () => number,
): Promise<void> {
  for (let n = 0; ; n++) {
    const key = keys[n % keys.length]!;
    const state = states.get(key)!;
    const op: WriteOp = !state.exists ? 'create' : n % 5 === 4 ? 'delete' : 'update';
    const write: Write = { key, op, seq: nextSeq() };
    state.inFlight = write;
    let reply: { status: number; json: any };
    const { method, path, body } = configMapWrite(BASE, op, key, state.rv, dataFor(key, write.seq));
    try {
      reply = await pipe.request(method, path, body);
    } catch {
      return; // the server died with this request on the wire
    }
    state.inFlight = undefined;
    Object.assign(state, acknowledge(write, reply));
    acked.push(write);
    state.last = write;
  }
}

const server = new KilledServer('nodeherd-pipelined-durability-');

test('every acknowledged write survives SIGKILL while clients pipeline on one connection each', async () => {
  await server.start();
  const { token, ca } = adminCredential(server.dataDir);
  const states = new Map<string, KeyState>();
  const lanes: string[][] = [];
  for (let c = 0; c < CLIENTS; c++) {
    for (let l = 0; l < DEPTH; l++) {
      const keys = Array.from({ length: KEYS_PER_LANE }, (_, k) => `c${c}-l${l}-k${k}`);
      for (const key of keys) states.set(key, { exists: false, rv: '' });
      lanes.push(keys);
    }
  }
  const acked: Write[] = [];
  let seq = 0;
  let inFlightCommitted = 0;
  let inFlightLost = 0;

  for (let round = 0; round < ROUNDS; round++) {
    const ackedBefore = acked.length;
    const pipes = await Promise.all(
      Array.from({ length: CLIENTS }, () => PipelinedConnection.connect(server.process.url, token, ca)),
    );
    const running = lanes.map((keys, i) =>
      runLane(pipes[Math.floor(i / DEPTH)]!, keys, states, acked, () => ++seq),
    );
    await untilMidStream(() => acked.length - ackedBefore, ACKS_PER_ROUND, 30_000, {
      minMs: 30,
      jitterMs: 150,
    });
    const onTheWire = pipes.reduce((sum, pipe) => sum + pipe.inFlight, 0);
    await server.kill();
    await Promise.all(running);
    for (const pipe of pipes) pipe.close();
    const roundAcks = acked.length - ackedBefore;
    assert.ok(
      roundAcks >= ACKS_PER_ROUND,
      `round ${round}: ${roundAcks} acknowledged writes before the kill`,
    );
    assert.ok(onTheWire > CLIENTS, `requests were pipelined at the kill (${onTheWire} on the wire)`);

    const check = await PipelinedConnection.connect((await server.start()).url, token, ca);
    try {
      const list = await check.request('GET', BASE);
      assertCoversAcknowledged(list, acked, 'the revision covers every ack');
      const stored = new Map<string, any>(list.json.items.map((item: any) => [item.metadata.name, item]));
      // Acknowledged resourceVersions are unique across all connections.
      assert.equal(
        new Set(acked.filter((w) => w.rv !== undefined).map((w) => w.rv)).size,
        acked.filter((w) => w.rv !== undefined).length,
        'no resourceVersion acknowledged twice',
      );

      for (const [key, state] of states) {
        const object = stored.get(key);
        const outcome = checkKeyAfterKill(key, object, state.last, state.inFlight, (seq) =>
          dataFor(key, seq),
        );
        if (outcome === 'committed') inFlightCommitted++;
        if (outcome === 'lost') inFlightLost++;
        // Continue from what the server holds now.
        state.inFlight = undefined;
        if (object === undefined) Object.assign(state, { exists: false, rv: '' });
        else Object.assign(state, { exists: true, rv: object.metadata.resourceVersion });
        if (object !== undefined || state.last?.op !== 'delete') {
          state.last =
            object === undefined
              ? undefined
              : {
                  key,
                  op: 'update',
                  seq: Number(object.data.seq),
                  rv: Number(object.metadata.resourceVersion),
                };
        }
      }
    } finally {
      check.close();
    }
  }
  process.stdout.write(
    `# pipelined durability: ${acked.length} acknowledged writes over ${ROUNDS} kills; in flight at a kill: ${inFlightCommitted} committed, ${inFlightLost} not\n`,
  );
});
