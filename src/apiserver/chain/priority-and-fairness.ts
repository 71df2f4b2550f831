// Priority and fairness, in the spirit of kube-apiserver's API Priority and Fairness (APF): every
// request takes a seat of its identity's flow at its priority level before it is served, and gives it
// back when its response closes; a watch holds a watch seat of its identity for as long as it is open.
// A flow at its seats waits in a bounded queue; a full queue, a wait past the queue's deadline or an
// identity at its watches is answered 429 with Retry-After, as kube does.
//
// Levels, in the order a freed seat goes to whoever waits: system (the controller), node (agents and
// kubelets), workload (any other authenticated user), anonymous (every request that carries no
// credential: the public documents and the 401s; a request with a credential is named by
// authentication, which refuses a bad one at once). The admin (system:masters) is exempt, as kube's exempt
// level is. Each level has seats of its own within the server's total, so a level below cannot take the
// seats of a level above, and a flow of one identity cannot take more than its share of its level.
//
// The server runs on one thread: what a request takes from the others is time on the event loop, and
// a request that is answered at once would give its seat back before anyone else had a turn. So a seat
// of the levels below system is held at least its level's seat time (25 ms): one identity is served at
// most seats ÷ seat time requests a second (a node: 4 ÷ 25 ms, 160/s, some tens of times what an agent
// needs), whatever number of connections it floods on, and the requests past that wait, parked, instead
// of taking turns from everyone else. A refusal is answered after the refusal delay (1 s), not at once:
// a client that ignores Retry-After and asks again at once would otherwise turn refusals into a flood
// of their own. bench/apiserver-fairness.bench.ts measures the controller's p99 while one node floods.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Identity } from '../auth/identities.ts';
import { ApiError } from '../errors.ts';
import { setWatchBudget, WatchBudget } from '../watch/watch-budget.ts';
import type { RequestStage } from './request-chain.ts';

export type PriorityLevel = 'system' | 'node' | 'workload' | 'anonymous';
/** The levels in the order a freed seat goes to whoever waits. */
export const PRIORITY_LEVELS: readonly PriorityLevel[] = ['system', 'node', 'workload', 'anonymous'];

export interface FairnessLimits {
  /** Requests (not watches) one identity may have served at once, by its level. */
  requestsPerIdentity: Record<PriorityLevel, number>;
  /** Requests of one identity that may wait for a seat; more are refused at once. */
  queuedPerIdentity: Record<PriorityLevel, number>;
  /** Watches one identity may hold open. */
  watchesPerIdentity: Record<PriorityLevel, number>;
  /**
   * Output the watches of one identity may leave unread, together, before they are cut off as slow
   * watchers (watch/watch-budget.ts); 0: no shared budget, each watch has the slow-watcher cap alone.
   */
  watchBytesPerIdentity: Record<PriorityLevel, number>;
  /** Requests of all identities of a level served at once. */
  requestsPerLevel: Record<PriorityLevel, number>;
  /** The least time a seat is held, by level (see the top of this file). */
  seatMs: Record<PriorityLevel, number>;
  /** How long a request may wait for a seat before it is refused (kube: a quarter of the request timeout). */
  queueWaitMs: number;
  /** How long a refused request waits for its 429 (at most queueWaitMs). */
  refusalDelayMs: number;
}

/**
 * The defaults. A node agent holds a handful of watches (its Node, its pool's revision and pools, the
 * Secrets of its files); the controller one per kind it reconciles and per pool it rolls out, and more
 * when several replicas elect a leader. Requests: an agent has a few in flight at most; the controller
 * patches many nodes in parallel during a rollout.
 */
export const DEFAULT_FAIRNESS: FairnessLimits = {
  requestsPerIdentity: { system: 200, node: 4, workload: 8, anonymous: 8 },
  queuedPerIdentity: { system: 1000, node: 16, workload: 32, anonymous: 64 },
  watchesPerIdentity: { system: 1000, node: 8, workload: 32, anonymous: 0 },
  // One watch's slow-watcher cap, shared by all of an identity's watches (the controller's are many).
  watchBytesPerIdentity: { system: 0, node: 16 * 1024 * 1024, workload: 16 * 1024 * 1024, anonymous: 0 },
  // 600 in all, as kube's 400 + 200 in-flight: the levels below system can never fill the server.
  requestsPerLevel: { system: 600, node: 400, workload: 100, anonymous: 20 },
  seatMs: { system: 0, node: 25, workload: 25, anonymous: 25 },
  queueWaitMs: 15_000,
  refusalDelayMs: 1_000,
};

/** What ApiServerOptions.fairness may change: any level's limits, the rest stay the defaults. */
export interface FairnessOptions {
  requestsPerIdentity?: Partial<Record<PriorityLevel, number>>;
  queuedPerIdentity?: Partial<Record<PriorityLevel, number>>;
  watchesPerIdentity?: Partial<Record<PriorityLevel, number>>;
  watchBytesPerIdentity?: Partial<Record<PriorityLevel, number>>;
  requestsPerLevel?: Partial<Record<PriorityLevel, number>>;
  seatMs?: Partial<Record<PriorityLevel, number>>;
  queueWaitMs?: number;
  refusalDelayMs?: number;
}

type PerLevel =
  | 'requestsPerIdentity'
  | 'queuedPerIdentity'
  | 'watchesPerIdentity'
  | 'watchBytesPerIdentity'
  | 'requestsPerLevel'
  | 'seatMs';

/** The limits with `options` over the defaults. */
export function fairnessLimits(options: FairnessOptions = {}): FairnessLimits {
  const queueWaitMs = options.queueWaitMs ?? DEFAULT_FAIRNESS.queueWaitMs;
  const merge = (key: PerLevel) => ({
    ...DEFAULT_FAIRNESS[key],
    ...options[key],
  });
  return {
    requestsPerIdentity: merge('requestsPerIdentity'),
    queuedPerIdentity: merge('queuedPerIdentity'),
    watchesPerIdentity: merge('watchesPerIdentity'),
    watchBytesPerIdentity: merge('watchBytesPerIdentity'),
    requestsPerLevel: merge('requestsPerLevel'),
    seatMs: merge('seatMs'),
    queueWaitMs,
    refusalDelayMs: Math.min(options.refusalDelayMs ?? DEFAULT_FAIRNESS.refusalDelayMs, queueWaitMs),
  };
}

/** The level of an identity; undefined for the exempt admin. */
export function priorityLevelOf(identity: Identity | undefined): PriorityLevel | undefined {
  if (identity === undefined) return 'anonymous';
  switch (identity.kind) {
    case 'admin':
      return undefined;
    case 'controller':
      return 'system';
    case 'node':
    case 'kubelet':
      return 'node';
    default:
      return 'workload';
  }
}

const ANONYMOUS = 'system:anonymous';

function tooManyRequests(message: string, retryAfterSeconds: number): ApiError {
  return new ApiError(429, 'TooManyRequests', message, { retryAfterSeconds });
}

interface Waiter {
  /** Called with the seat taken for it. */
  admit: () => void;
}

interface Flow {
  readonly key: string;
  readonly level: Level;
  inFlight: number;
  watches: number;
  /** Shared by the flow's watches, when its level has one. */
  watchBudget: WatchBudget | undefined;
  readonly queue: Waiter[];
}

interface Level {
  readonly name: PriorityLevel;
  inFlight: number;
  readonly flows: Map<string, Flow>;
  /** Flows with waiters, served round robin. */
  readonly waiting: Flow[];
}

/** The seats of the server: one instance, shared by both stages. */
export class Fairness {
  readonly limits: FairnessLimits;
  readonly #levels = new Map<PriorityLevel, Level>();
  #dispatchScheduled = false;
  /** Seats handed back this turn, returned on the next (see the top of this file). */
  #returning: Flow[] = [];

  constructor(limits: FairnessLimits) {
    this.limits = limits;
    for (const name of PRIORITY_LEVELS)
      this.#levels.set(name, { name, inFlight: 0, flows: new Map(), waiting: [] });
  }

  /** Open watches and requests in flight or waiting, by level (for tests and metrics). */
  usage(): Record<PriorityLevel, { inFlight: number; waiting: number; watches: number }> {
    const out = {} as Record<PriorityLevel, { inFlight: number; waiting: number; watches: number }>;
    for (const [name, level] of this.#levels) {
      let waiting = 0;
      let watches = 0;
      for (const flow of level.flows.values()) {
        waiting += flow.queue.length;
        watches += flow.watches;
      }
      out[name] = { inFlight: level.inFlight, waiting, watches };
    }
    return out;
  }

  /** The stage before authentication: a request without a credential is the anonymous flow's. */
  unauthenticatedStage(): RequestStage {
    return {
      name: 'priority and fairness (unauthenticated)',
      handle: async (request, next) => {
        // A request with a credential is named by authentication, which answers a bad one at once.
        if (request.req.headers.authorization !== undefined) return next();
        await this.#takeSeat('anonymous', ANONYMOUS, request.res);
        return next();
      },
    };
  }

  /** The stage after authentication: the identity's seat (or watch seat), or 429. */
  stage(): RequestStage {
    return {
      name: 'priority and fairness',
      handle: async (request, next) => {
        const identity = request.authenticated;
        const level = priorityLevelOf(identity);
        if (level === undefined) return next();
        if (request.info.isResourceRequest && request.info.verb === 'watch') {
          await this.#takeWatch(level, identity.name, request.req, request.res);
        } else {
          await this.#takeSeat(level, identity.name, request.res);
        }
        return next();
      },
    };
  }

  #flow(levelName: PriorityLevel, key: string): Flow {
    const level = this.#levels.get(levelName)!;
    let flow = level.flows.get(key);
    if (!flow) {
      flow = { key, level, inFlight: 0, watches: 0, watchBudget: undefined, queue: [] };
      level.flows.set(key, flow);
    }
    return flow;
  }

  /** Forgets a flow that holds and waits for nothing, so identities seen once cost nothing. */
  #forgetIfIdle(flow: Flow): void {
    if (flow.inFlight === 0 && flow.watches === 0 && flow.queue.length === 0)
      flow.level.flows.delete(flow.key);
  }

  /** A refusal, answered after the refusal delay (see the top of this file). */
  #refuse(err: ApiError): Promise<never> {
    return new Promise((_resolve, reject) => setTimeout(() => reject(err), this.limits.refusalDelayMs));
  }

  #takeWatch(
    levelName: PriorityLevel,
    key: string,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const flow = this.#flow(levelName, key);
    const limit = this.limits.watchesPerIdentity[levelName];
    if (flow.watches >= limit) {
      this.#forgetIfIdle(flow);
      return this.#refuse(
        tooManyRequests(
          `too many open watches: ${key} has ${flow.watches}, the limit of its priority level "${levelName}" is ${limit}`,
          // A watch is held for minutes: try again after a while, not at once.
          10,
        ),
      );
    }
    flow.watches++;
    const budgetBytes = this.limits.watchBytesPerIdentity[levelName];
    if (budgetBytes > 0) {
      flow.watchBudget ??= new WatchBudget(budgetBytes);
      flow.watchBudget.add(res);
      setWatchBudget(req, flow.watchBudget);
    }
    whenClosed(res, () => {
      flow.watches--;
      this.#forgetIfIdle(flow);
    });
    return Promise.resolve();
  }

  /** Resolves with the seat's release once it is taken (now or from the queue); rejects with a 429. */
  #takeSeat(levelName: PriorityLevel, key: string, res: ServerResponse): Promise<() => void> {
    const flow = this.#flow(levelName, key);
    const seatMs = this.limits.seatMs[levelName];
    let released = false;
    let takenAt = 0;
    const release = () => {
      if (released) return;
      released = true;
      const left = seatMs - (performance.now() - takenAt);
      if (left >= 1) setTimeout(() => this.#giveBack(flow), left);
      else this.#giveBack(flow);
    };
    const take = () => {
      this.#seat(flow);
      takenAt = performance.now();
      whenClosed(res, release);
    };
    if (flow.queue.length === 0 && this.#hasSeat(flow)) {
      take();
      return Promise.resolve(release);
    }
    if (flow.queue.length >= this.limits.queuedPerIdentity[levelName]) {
      this.#forgetIfIdle(flow);
      return this.#refuse(
        tooManyRequests(
          `too many requests: ${key} has ${flow.inFlight} being served and ${flow.queue.length} waiting, the limits of its priority level "${levelName}"`,
          1,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        leave();
        reject(
          tooManyRequests(
            `too many requests: ${key} waited ${this.limits.queueWaitMs} ms for a seat of its priority level "${levelName}"`,
            1,
          ),
        );
      }, this.limits.queueWaitMs);
      const waiter: Waiter = {
        admit: () => {
          clearTimeout(timer);
          res.off('close', gone);
          take();
          resolve(release);
        },
      };
      // A client that hangs up while it waits gives its place back; the chain answers nobody.
      const gone = () => {
        clearTimeout(timer);
        leave();
        reject(new ApiError(499, 'Timeout', 'the client closed the connection while waiting'));
      };
      const leave = () => {
        res.off('close', gone);
        const at = flow.queue.indexOf(waiter);
        if (at >= 0) flow.queue.splice(at, 1);
        if (flow.queue.length === 0) {
          const w = flow.level.waiting.indexOf(flow);
          if (w >= 0) flow.level.waiting.splice(w, 1);
        }
        this.#forgetIfIdle(flow);
      };
      res.once('close', gone);
      flow.queue.push(waiter);
      if (flow.queue.length === 1) flow.level.waiting.push(flow);
    });
  }

  #hasSeat(flow: Flow): boolean {
    const level = flow.level;
    return (
      flow.inFlight < this.limits.requestsPerIdentity[level.name] &&
      level.inFlight < this.limits.requestsPerLevel[level.name] &&
      this.#serverInFlight() < this.limits.requestsPerLevel.system
    );
  }

  #serverInFlight(): number {
    let total = 0;
    for (const level of this.#levels.values()) total += level.inFlight;
    return total;
  }

  #seat(flow: Flow): void {
    flow.inFlight++;
    flow.level.inFlight++;
  }

  #giveBack(flow: Flow): void {
    this.#returning.push(flow);
    if (this.#dispatchScheduled) return;
    this.#dispatchScheduled = true;
    setImmediate(() => this.#dispatch());
  }

  /** Returns this turn's seats, then gives free seats to waiters: levels in order, flows round robin. */
  #dispatch(): void {
    this.#dispatchScheduled = false;
    const returning = this.#returning;
    this.#returning = [];
    for (const flow of returning) {
      flow.inFlight--;
      flow.level.inFlight--;
      this.#forgetIfIdle(flow);
    }
    for (const name of PRIORITY_LEVELS) {
      const level = this.#levels.get(name)!;
      let blocked = 0;
      // Each pass over the waiting flows admits one request of each flow that has a seat.
      while (level.waiting.length > 0 && blocked < level.waiting.length) {
        const flow = level.waiting.shift()!;
        if (!this.#hasSeat(flow)) {
          level.waiting.push(flow);
          blocked++;
          if (level.inFlight >= this.limits.requestsPerLevel[name]) break;
          continue;
        }
        blocked = 0;
        const waiter = flow.queue.shift()!;
        if (flow.queue.length > 0) level.waiting.push(flow);
        waiter.admit();
      }
    }
  }
}

/** Runs `action` once the response has closed (at once if it already has). */
function whenClosed(res: ServerResponse, action: () => void): void {
  if (res.closed) action();
  else res.once('close', action);
}
