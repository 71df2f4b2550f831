// The slot protocol of one Serial pool as the agents speak it, pinned against the real embedded API
// server over HTTP before its rewrite into explicit states (issue 29), and passing after it. Two
// agents' slot semaphores (each with its own client), a controller played by the test (a hand-over is
// a compare-and-swap that writes the holder and the controller's mark, then the Node tells the agent),
// a clock the test moves (expiry) and crashes (a semaphore closed without releasing, then a new one
// with the same identity: an agent restart). Scripted scenarios check what each step answers and
// writes; a seeded random walk checks at every step what must hold whatever came before:
// - a live holder's slot (its record younger than a lease duration) is never granted to the other;
// - an agent told it holds the slot is its holder on the server, and one told to wait is not;
// - the holder on the server is always granted its slot again (renewed, re-adopted or handed over);
// - released (and the grace over), the slot is no longer the agent's, nor does the agent think so;
// - a slot the controller hands over is taken up without a write of the agent's own;
// - a free slot is taken by a waiter that looks again when told to (recheckAt), its clock moving so.

import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Clock } from '../../../src/agent/clock.ts';
import type { Logger } from '../../../src/agent/logger.ts';
import { SlotKeeper } from '../../../src/agent/serial/slot-keeper.ts';
import type { NodeFacts, SlotAnswer } from '../../../src/agent/serial/slot-waiter.ts';
import {
  SERIAL_HANDED_OVER_ANNOTATION,
  SERIAL_LEASE_NAMESPACE,
  SERIAL_POOL_LABEL,
  type SerialGate,
  type SerialSlotHandover,
  serialLeaseName,
} from '../../../src/api/node-protocol.ts';
import { LightKubeClient } from '../../../src/kube/light/light-kube-client.ts';
import type { Lease } from '../../../src/kube/types.ts';
import { eventually } from '../../support/eventually.ts';
import { type Cluster, startCluster } from '../agent-harness.ts';
import { LEASES } from '../serial-support.ts';

const DURATION_S = 600;
const DURATION_MS = DURATION_S * 1000;

/** The agents' clock: real time plus what the test moved it by (expiry without waiting for it). */
class TestClock implements Clock {
  private offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
  advance(ms: number): void {
    this.offset += ms;
  }
}

const microTime = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

/** A logger that keeps the messages (the agent's log is part of what it tells an operator). */
function recordingLogger(messages: string[]): Logger {
  const logger: Logger = {
    debug() {},
    info: (_fields: unknown, message?: string) => void messages.push(message ?? ''),
    warn: (_fields: unknown, message?: string) => void messages.push(`warn: ${message ?? ''}`),
    error: (_fields: unknown, message?: string) => void messages.push(`error: ${message ?? ''}`),
    child: () => logger,
  } as Logger;
  return logger;
}

/** One agent's slot semaphore, its Node's facts as the controller and kubelet set them, its writes. */
class TestAgent {
  slots!: SlotKeeper;
  /** Slot Lease creates and updates this agent sent (a hand-over is taken up without one). */
  writes = 0;
  ready = true;
  handedOver: SerialSlotHandover | undefined;
  /** Handed a slot by the controller since its last look (the random walk's bookkeeping). */
  freshHandOver = false;
  readonly log: string[] = [];
  readonly name: string;
  private readonly client: LightKubeClient;
  private readonly clock: TestClock;
  private readonly graceMs: number;

  constructor(name: string, kubeconfig: string, clock: TestClock, graceMs: number) {
    this.name = name;
    this.clock = clock;
    this.graceMs = graceMs;
    this.client = LightKubeClient.fromKubeconfig(kubeconfig);
    this.start();
  }

  /** A new semaphore with the same identity: the agent (re)started. */
  start(): void {
    const counted = new Proxy(this.client, {
      get: (target, key) => {
        const value = Reflect.get(target, key, target);
        if (typeof value !== 'function') return value;
        if (key === 'update' || key === 'create')
          return (...args: unknown[]) => {
            this.writes++;
            return value.apply(target, args);
          };
        return value.bind(target);
      },
    });
    this.slots = new SlotKeeper({
      client: counted,
      identity: this.name,
      clock: this.clock,
      logger: recordingLogger(this.log),
      onChange: () => undefined,
      controllerGraceMs: this.graceMs,
    });
  }

  get facts(): NodeFacts {
    return { ready: this.ready, ...(this.handedOver ? { handedOver: this.handedOver } : {}) };
  }

  acquire(gate: SerialGate, starting = true): Promise<SlotAnswer> {
    return this.slots.acquire(gate, starting, this.facts);
  }

  /** Stops without releasing (a crash, or an agent stopped), then starts again. */
  async crash(): Promise<void> {
    await this.slots.close();
    this.start();
  }

  async stop(): Promise<void> {
    await this.slots.close();
    this.client.close();
  }
}

describe('the Serial slot protocol against the API server', () => {
  let cluster: Cluster;
  let agents: TestAgent[] = [];
  let pools = 0;

  before(async () => {
    cluster = await startCluster();
  });
  afterEach(async () => {
    for (const agent of agents) await agent.stop();
    agents = [];
  });
  after(async () => {
    await cluster?.stop();
  });

  const newPool = (slots = 1): SerialGate => ({
    pool: `proto-${++pools}`,
    slots,
    leaseDurationSeconds: DURATION_S,
  });

  function twoAgents(clock: TestClock, graceMs: number): [TestAgent, TestAgent] {
    const made = ['a', 'b'].map(
      (n) => new TestAgent(`${n}-${pools}`, cluster.api.kubeconfigPath, clock, graceMs),
    );
    agents.push(...made);
    return made as [TestAgent, TestAgent];
  }

  const leaseOf = async (gate: SerialGate, slot = 0): Promise<Lease | undefined> => {
    try {
      return await cluster.admin.get<Lease>(`${LEASES}/${serialLeaseName(gate.pool, slot)}`);
    } catch {
      return undefined;
    }
  };
  const holderOf = async (gate: SerialGate, slot = 0) =>
    (await leaseOf(gate, slot))?.spec?.holderIdentity || undefined;

  /**
   * The controller's hand-over: `to` becomes the holder of the slot (compare-and-swap on the Lease as
   * read, created if none), marked as the controller's, and its Node names the slot.
   */
  async function handOver(clock: TestClock, gate: SerialGate, slot: number, to: TestAgent): Promise<void> {
    const name = serialLeaseName(gate.pool, slot);
    const at = microTime(clock.now());
    const lease = await leaseOf(gate, slot);
    const metadata = {
      ...(lease?.metadata ?? { name, namespace: SERIAL_LEASE_NAMESPACE }),
      labels: { [SERIAL_POOL_LABEL]: gate.pool },
      annotations: { ...lease?.metadata.annotations, [SERIAL_HANDED_OVER_ANNOTATION]: at },
    };
    const spec = {
      ...lease?.spec,
      leaseDurationSeconds: DURATION_S,
      holderIdentity: to.name,
      acquireTime: at,
      renewTime: at,
    };
    const body = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata, spec };
    if (lease) await cluster.admin.update(`${LEASES}/${name}`, body);
    else await cluster.admin.create(LEASES, body);
    to.handedOver = { lease: name, handedOverAt: at };
  }

  /**
   * Asks as the agent's reconcile does until it holds a slot: again at each recheckAt (the clock moved
   * there) or, without one, a moment later. Fails after `tries`.
   */
  async function takeTurns(clock: TestClock, agent: TestAgent, gate: SerialGate, tries = 8) {
    let answer: SlotAnswer = await agent.acquire(gate);
    for (let i = 1; i < tries && !answer.held; i++) {
      if (answer.recheckAt !== undefined) clock.advance(Math.max(0, answer.recheckAt - clock.now()) + 1);
      else await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await agent.acquire(gate);
    }
    assert.ok(answer.held, `${agent.name} got no slot: ${JSON.stringify(answer)}`);
    return answer;
  }

  it('agents alone: one takes, the other waits naming it, takes its turn once the slot is released', async () => {
    const clock = new TestClock();
    const gate = newPool();
    const [a, b] = twoAgents(clock, 300);
    assert.deepEqual(await takeTurns(clock, a, gate), { held: true, slot: 0 });
    assert.equal(await holderOf(gate), a.name);
    assert.deepEqual(a.slots.held, { pool: gate.pool, slot: 0 });
    assert.ok(a.log.includes('serial slot taken'));

    const waiting = await b.acquire(gate);
    assert.equal(waiting.held, false);
    assert.deepEqual(waiting.held === false && waiting.holders, [a.name]);
    assert.equal(b.slots.watching, true, 'a waiter without a controller watches the slot Leases');

    // No controller seen: released at once, and the watch goes.
    await a.slots.release();
    assert.equal(await holderOf(gate), undefined);
    assert.equal(a.slots.held, undefined);
    assert.equal(a.slots.watching, false);
    assert.ok(a.log.includes('serial slot released'));
    assert.deepEqual(await takeTurns(clock, b, gate), { held: true, slot: 0 });
    assert.equal(await holderOf(gate), b.name);
    const lease = await leaseOf(gate);
    assert.equal(lease?.spec?.leaseTransitions, 1, 'one transition: a to free to b counts as a take');
  });

  it('a crash keeps the slot: the restarted agent re-adopts it with one renewal', async () => {
    const clock = new TestClock();
    const gate = newPool();
    const [a, b] = twoAgents(clock, 300);
    await takeTurns(clock, a, gate);
    await a.crash();
    assert.equal(await holderOf(gate), a.name, 'a crash releases nothing');
    assert.equal((await b.acquire(gate)).held, false);
    const writes = a.writes;
    assert.deepEqual(await a.acquire(gate), { held: true, slot: 0 });
    assert.equal(a.writes - writes, 1, 're-adopted with a renewal');
    assert.ok(a.log.includes('serial slot re-adopted'));
    assert.equal(await holderOf(gate), a.name);
  });

  it('a holder that died: its slot is taken over once a lease duration has passed on the clock', async () => {
    const clock = new TestClock();
    const gate = newPool();
    const [a, b] = twoAgents(clock, 300);
    await takeTurns(clock, a, gate);
    await a.slots.close();
    const waiting = await b.acquire(gate);
    assert.equal(waiting.held, false);
    assert.ok(waiting.recheckAt !== undefined && waiting.recheckAt >= clock.now() + DURATION_MS - 60_000);
    clock.advance(DURATION_MS - 10_000);
    assert.equal((await b.acquire(gate)).held, false, 'not expired yet');
    assert.deepEqual(await takeTurns(clock, b, gate), { held: true, slot: 0 });
    assert.equal(await holderOf(gate), b.name);
    // The dead holder comes back: the slot is not its any more.
    a.start();
    const back = await a.acquire(gate);
    assert.equal(back.held, false);
    assert.deepEqual(back.held === false && back.holders, [b.name]);
  });

  it('a holder that missed its expiry learns of the loss at its next start, by its renewal', async () => {
    const clock = new TestClock();
    const gate = newPool();
    const [a, b] = twoAgents(clock, 300);
    await takeTurns(clock, a, gate);
    clock.advance(DURATION_MS + 1000);
    assert.deepEqual(await takeTurns(clock, b, gate), { held: true, slot: 0 });
    assert.deepEqual(
      await a.acquire(gate, false),
      { held: true, slot: 0 },
      'an apply in progress keeps going',
    );
    const answer = await a.acquire(gate, true);
    assert.equal(answer.held, false, 'a new apply proves its slot first');
    assert.equal(await holderOf(gate), b.name);
  });

  it('the controller hands over: taken up without a write; done, the slot is left to it for the grace', async () => {
    const clock = new TestClock();
    const gate = newPool();
    // A long grace: a loaded machine must not end it before the controller's next move.
    const [a, b] = twoAgents(clock, 60_000);
    await handOver(clock, gate, 0, a);
    let writes = a.writes;
    assert.deepEqual(await a.acquire(gate), { held: true, slot: 0 });
    assert.equal(a.writes - writes, 0, 'handed over: no write of its own');
    assert.ok(a.log.includes('serial slot handed over by the controller'));
    assert.equal(a.slots.watching, false, 'a holder needs no watch while the controller hands slots out');

    // b is Ready and every slot is held while the controller is live: it parks without a watch.
    const waiting = await b.acquire(gate);
    assert.deepEqual(waiting.held === false && waiting.holders, [a.name]);
    assert.equal(b.slots.watching, false, 'parked');

    await a.slots.release();
    assert.equal(await holderOf(gate), a.name, 'left to the controller for the grace');
    assert.deepEqual(a.slots.held, { pool: gate.pool, slot: 0 });
    await handOver(clock, gate, 0, b);
    writes = b.writes;
    assert.deepEqual(await b.acquire(gate), { held: true, slot: 0 });
    assert.equal(b.writes - writes, 0);
    assert.equal(await holderOf(gate), b.name);
    assert.equal(a.writes, 0, 'a wrote no slot Lease at all');
  });

  it('the controller stops: a finished holder releases after the grace, and the release drops the mark', async () => {
    const clock = new TestClock();
    const gate = newPool();
    const [a] = twoAgents(clock, 300);
    await handOver(clock, gate, 0, a);
    assert.deepEqual(await a.acquire(gate), { held: true, slot: 0 });
    await a.slots.release();
    await eventually('released after the grace', async () =>
      (await holderOf(gate)) === undefined ? true : undefined,
    );
    await eventually('a lets go', () => (a.slots.held === undefined ? true : undefined));
    const lease = await leaseOf(gate);
    assert.equal(lease?.metadata.annotations?.[SERIAL_HANDED_OVER_ANNOTATION], undefined);
  });

  it('a second slot handed to a holder goes back at once', async () => {
    const clock = new TestClock();
    const gate = newPool(2);
    const [a] = twoAgents(clock, 300);
    a.ready = false; // takes a slot by itself, watching
    const taken = await takeTurns(clock, a, gate);
    assert.equal(taken.held, true);
    const other = taken.held ? 1 - taken.slot : 0;
    await handOver(clock, gate, other, a);
    await a.acquire(gate, false);
    await eventually('the extra slot given back', async () =>
      (await holderOf(gate, other)) === undefined ? true : undefined,
    );
    assert.deepEqual(a.slots.held, { pool: gate.pool, slot: taken.held ? taken.slot : -1 });
  });

  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`random walk ${seed}: two agents, a controller, expiry and crashes keep the protocol's rules`, async () => {
      const clock = new TestClock();
      const gate = newPool();
      const pair = twoAgents(clock, 200);
      const random = mulberry32(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
      const trace: string[] = [];
      const check = (ok: boolean, what: string) => assert.ok(ok, `${what}\n  after: ${trace.join(' ')}`);

      for (let step = 0; step < 40; step++) {
        const agent = pick(pair);
        const other = pair[0] === agent ? pair[1] : pair[0];
        const before = await leaseOf(gate);
        const holder = before?.spec?.holderIdentity || undefined;
        const renewed = before?.spec?.renewTime ? Date.parse(before.spec.renewTime) : 0;
        const live = holder !== undefined && clock.now() - renewed < DURATION_MS - 1000;
        const action = pick([
          'acquire',
          'acquire',
          'acquire',
          'release',
          'handOver',
          'crash',
          'expire',
          'ready',
        ] as const);
        trace.push(`${action}(${agent.name})`);
        switch (action) {
          case 'acquire': {
            const writes = agent.writes;
            // The first look after a hand-over, the controller's write still fresh and no slot held before.
            const handedFresh = agent.freshHandOver && agent.slots.held === undefined;
            agent.freshHandOver = false;
            const answer = await agent.acquire(gate);
            trace.push(answer.held ? 'held' : 'waits');
            const now = await holderOf(gate);
            check(
              answer.held === (now === agent.name),
              `told ${answer.held ? 'held' : 'wait'}, the server says ${now}`,
            );
            if (holder === other.name && live)
              check(!answer.held, `${agent.name} granted ${other.name}'s live slot`);
            if (holder === agent.name) check(answer.held, `${agent.name}, the holder, not granted its slot`);
            if (answer.held) check(agent.slots.held?.slot === 0, 'held, yet holds nothing');
            if (handedFresh) check(agent.writes === writes, 'a fresh hand-over taken up with a write');
            break;
          }
          case 'release': {
            // Lets go of what it holds: a slot it has not taken up since a restart stays its own.
            const held = agent.slots.held !== undefined;
            await agent.slots.release();
            await eventually(`the release settles\n  after: ${trace.join(' ')}`, async () =>
              agent.slots.held === undefined && (!held || (await holderOf(gate)) !== agent.name)
                ? true
                : undefined,
            );
            break;
          }
          case 'handOver': {
            // The controller hands a free slot out (a held one only moves from a finished holder, which
            // has let it go here by the end of its step).
            if (holder !== undefined) break;
            await handOver(clock, gate, 0, agent);
            agent.freshHandOver = true;
            trace.push('handed');
            break;
          }
          case 'crash':
            await agent.crash();
            break;
          case 'expire':
            clock.advance(DURATION_MS + 1000);
            for (const x of pair) x.freshHandOver = false;
            break;
          case 'ready':
            agent.ready = !agent.ready;
            break;
        }
        const now = await holderOf(gate);
        check(now === undefined || now === pair[0].name || now === pair[1].name, `unknown holder ${now}`);
      }
      // Liveness: whatever came before, once the holder lets go, the other takes its turn.
      const last = await holderOf(gate);
      const holderAgent = pair.find((x) => x.name === last);
      if (holderAgent) {
        await holderAgent.acquire(gate);
        await holderAgent.slots.release();
        await eventually('the release settles', async () =>
          (await holderOf(gate)) !== last ? true : undefined,
        );
      }
      const waiter = pair.find((x) => x.name !== last) ?? pair[0];
      waiter.handedOver = undefined;
      await takeTurns(clock, waiter, gate, 12);
      assert.equal(await holderOf(gate), waiter.name);
    });
  }
});

/** A small seeded generator: the same walk at every run. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
