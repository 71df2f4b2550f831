// Over-the-air updates of the node's configuration, pulled by the node's owner (strategy OTA): the
// controller only announces the pool's newest revision in AVAILABLE_REVISION_ANNOTATION; this API
// shows what applying it would do (the one plan() of src/plan, from the revision last applied) and
// applies it by setting the node's own desired revision, which the agent then reconciles as usual.
// Answers are {status, body} values, so simulated nodes use it without HTTP; node-update-routes.ts
// serves it on the agent's local HTTP server.

import { matchesLabelSelector } from '../../api/label-selector.ts';
import {
  AVAILABLE_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  POOL_LABEL,
} from '../../api/node-protocol.ts';
import type { LabelSelector } from '../../api/types.ts';
import { isKubeError } from '../../kube/kube-error.ts';
import { resourcePath } from '../../kube/light/api-paths.ts';
import type { LightKubeClient } from '../../kube/light/light-kube-client.ts';
import type { KubeObject } from '../../kube/light/types.ts';
import { plan } from '../../plan/plan.ts';
import type { Plan } from '../../plan/types.ts';
import type { AgentStatus } from '../apply/reconciler.ts';
import { revisionProblem } from '../apply/reconciler.ts';
import { configOf, type RevisionRef } from '../apply/revision-ref.ts';
import {
  NODE_CONFIG_POOLS_PATH,
  NODES_PATH,
  type NodeObject,
  REVISIONS_PATH,
  type RevisionObject,
} from '../watch/kube-objects.ts';

export interface UpdateAnswer {
  status: number;
  body: unknown;
}

export interface NodeUpdateApiOptions {
  client: LightKubeClient;
  nodeName: string;
  /** The agent's own unit (plans restart it last). */
  selfUnit?: string;
  /** The Node as the agent last saw it. */
  node(): NodeObject | undefined;
  lastApplied(): RevisionRef | undefined;
  agentState(): AgentStatus['state'];
  /** How long the live check of the API server may take (default 3 s). */
  liveCheckTimeoutMs?: number;
}

/** What GET /v1/update answers with 200. */
export interface AvailableUpdate {
  kind: 'NodeUpdate';
  node: string;
  pool: string;
  currentRevision: string | undefined;
  availableRevision: string;
  plan: {
    summary: string;
    disruption: Plan['disruption'];
    drainNeeded: boolean;
    rebootNeeded: boolean;
    reloadNeeded: boolean;
    restartedUnits: string[];
    reloadedUnits: string[];
    changes: Plan['changes'];
    actions: { id: string; kind: string; reason: string }[];
    notes: string[];
  };
}

interface PoolObject extends KubeObject {
  spec?: { nodeSelector?: LabelSelector };
}

/** Reads and writes of the desired revision before a Node that keeps changing is a 409 to the caller. */
const CONFLICT_ATTEMPTS = 5;

type Checked<T> = { ok: true; value: T } | { ok: false; answer: UpdateAnswer };

export class NodeUpdateApi {
  private readonly options: NodeUpdateApiOptions;

  constructor(options: NodeUpdateApiOptions) {
    this.options = options;
  }

  /** GET /v1/update: the available revision and what applying it would do. */
  async available(): Promise<UpdateAnswer> {
    const seen = await this.seenNode();
    if (!seen.ok) return seen.answer;
    const early = this.precheck(false, seen.value);
    if (!early.ok) return early.answer;
    const inspected = await this.inspect(early.value);
    if (!inspected.ok) return inspected.answer;
    return { status: 200, body: inspected.value.update };
  }

  /**
   * POST /v1/update: applies the available revision by making it the node's desired revision, with
   * the resourceVersion of the Node just read: a concurrent change is read and checked again, never
   * overwritten.
   * `expected`, when given, must be the revision the caller saw as available.
   */
  async apply(expected?: string): Promise<UpdateAnswer> {
    const seen = await this.seenNode();
    if (!seen.ok) return seen.answer;
    const early = this.precheck(true, seen.value);
    if (!early.ok) return early.answer;
    // The kubelet's status writes and the agent's own reports change the Node all the time, so a
    // conflict is read again and judged again (as client-go's RetryOnConflict does): a change that
    // matters (another revision offered, an apply begun) is refused by the checks, not overwritten.
    let answer: UpdateAnswer | undefined;
    for (let attempt = 0; attempt < CONFLICT_ATTEMPTS && answer === undefined; attempt++)
      answer = await this.applyOnce(expected);
    return (
      answer ??
      refusal(
        409,
        'Conflict',
        `Node ${this.options.nodeName} changed ${CONFLICT_ATTEMPTS} times while the update was requested; try again`,
      )
    );
  }

  /** One read-check-write of the desired revision; undefined when the Node changed in between. */
  private async applyOnce(expected: string | undefined): Promise<UpdateAnswer | undefined> {
    const live = await this.liveNode();
    if (!live.ok) return live.answer;
    const again = this.precheck(true, live.value);
    if (!again.ok) return again.answer;
    const available = again.value;
    if (expected !== undefined && expected !== available)
      return refusal(409, 'RevisionMismatch', `the available revision is ${available}, not ${expected}`);
    const inspected = await this.inspect(available, live.value);
    if (!inspected.ok) return inspected.answer;
    const { client, nodeName } = this.options;
    try {
      await client.patch(resourcePath({ apiVersion: 'v1', resource: 'nodes', name: nodeName }), {
        metadata: {
          resourceVersion: live.value.metadata?.resourceVersion,
          annotations: { [DESIRED_REVISION_ANNOTATION]: available },
        },
      });
    } catch (error) {
      if (isKubeError(error, 409)) return undefined;
      return refusal(
        503,
        'ApiServerUnreachable',
        `could not set the desired revision: ${(error as Error).message}`,
      );
    }
    return {
      status: 202,
      body: {
        kind: 'NodeUpdateAccepted',
        node: nodeName,
        revision: available,
        message: `applying ${available}: ${inspected.value.update.plan.summary}`,
      },
    };
  }

  /** What is available and whether it may be applied, judged from `node`. */
  private precheck(applying: boolean, node: NodeObject): Checked<string> {
    const { nodeName } = this.options;
    const annotations = node.metadata?.annotations ?? {};
    const available = annotations[AVAILABLE_REVISION_ANNOTATION] || undefined;
    const last = this.options.lastApplied()?.name;
    if (available === undefined)
      return {
        ok: false,
        answer: refusal(404, 'NoUpdateAvailable', `no update is available for node ${nodeName}`),
      };
    const desired = annotations[DESIRED_REVISION_ANNOTATION] || undefined;
    const state = this.options.agentState();
    const running =
      state === 'Applying' ||
      state === 'Verifying' ||
      (desired !== undefined && desired !== last && state !== 'Failed');
    if (applying && running)
      return {
        ok: false,
        answer: refusal(
          409,
          'ApplyInProgress',
          `node ${nodeName} is applying ${desired ?? 'a revision'} (${state})`,
        ),
      };
    if (available === last && (desired === undefined || desired === last))
      return {
        ok: false,
        answer: refusal(404, 'NoUpdateAvailable', `node ${nodeName} already runs revision ${available}`),
      };
    return { ok: true, value: available };
  }

  /** Reads the available revision and its pool, checks both, and plans from the last applied revision. */
  private async inspect(available: string, node?: NodeObject): Promise<Checked<{ update: AvailableUpdate }>> {
    const { client, nodeName } = this.options;
    let revision: RevisionObject;
    try {
      revision = await this.withTimeout(
        client.get<RevisionObject>(`${REVISIONS_PATH}/${encodeURIComponent(available)}`),
      );
    } catch (error) {
      if (isKubeError(error, 404))
        return {
          ok: false,
          answer: refusal(409, 'RevisionNotFound', `NodeConfigRevision ${available} does not exist`),
        };
      return { ok: false, answer: unreachable(error) };
    }
    const problem = revisionProblem(revision);
    if (problem)
      return {
        ok: false,
        answer: refusal(409, 'InvalidRevision', `NodeConfigRevision ${available} refused: ${problem}`),
      };
    const pool = revision.spec.pool;
    const labels = (node ?? this.options.node())?.metadata?.labels;
    let member = labels?.[POOL_LABEL] === pool;
    if (!member) {
      try {
        const object = await this.withTimeout(
          client.get<PoolObject>(`${NODE_CONFIG_POOLS_PATH}/${encodeURIComponent(pool)}`),
        );
        member =
          object.spec?.nodeSelector !== undefined && matchesLabelSelector(object.spec.nodeSelector, labels);
      } catch (error) {
        if (!isKubeError(error, 404)) return { ok: false, answer: unreachable(error) };
      }
    }
    if (!member)
      return {
        ok: false,
        answer: refusal(
          409,
          'WrongPool',
          `revision ${available} belongs to pool ${pool}, which does not select node ${nodeName}`,
        ),
      };
    const last = this.options.lastApplied();
    const steps = plan(
      last ? { config: configOf(last) } : undefined,
      { config: revision.spec.config },
      this.options.selfUnit !== undefined ? { selfUnit: this.options.selfUnit } : {},
    );
    const names = (kind: string) =>
      steps.actions.flatMap((a) => (a.kind === kind && 'name' in a ? [a.name] : []));
    return {
      ok: true,
      value: {
        update: {
          kind: 'NodeUpdate',
          node: nodeName,
          pool,
          currentRevision: last?.name,
          availableRevision: available,
          plan: {
            summary: steps.summary,
            disruption: steps.disruption,
            drainNeeded: steps.disruption === 'Drain' || steps.disruption === 'Reboot',
            rebootNeeded: steps.disruption === 'Reboot',
            reloadNeeded: steps.actions.some((a) => a.kind === 'reload-unit' || a.kind === 'daemon-reload'),
            restartedUnits: names('restart-unit'),
            reloadedUnits: names('reload-unit'),
            changes: steps.changes,
            actions: steps.actions.map((a) => ({ id: a.id, kind: a.kind, reason: a.reason })),
            notes: steps.notes,
          },
        },
      },
    };
  }

  /** The Node as the agent's watch saw it last, else read now. */
  private seenNode(): Promise<Checked<NodeObject>> {
    const node = this.options.node();
    return node ? Promise.resolve({ ok: true, value: node }) : this.liveNode();
  }

  /** The Node read now, with a short timeout: the API server must be there to take the update. */
  private async liveNode(): Promise<Checked<NodeObject>> {
    try {
      const node = await this.withTimeout(
        this.options.client.get<NodeObject>(`${NODES_PATH}/${encodeURIComponent(this.options.nodeName)}`),
      );
      return { ok: true, value: node };
    } catch (error) {
      return { ok: false, answer: unreachable(error) };
    }
  }

  private withTimeout<T>(promise: Promise<T>): Promise<T> {
    const ms = this.options.liveCheckTimeoutMs ?? 3000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }
}

function refusal(code: number, reason: string, message: string): UpdateAnswer {
  return {
    status: code,
    body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message },
  };
}

function unreachable(error: unknown): UpdateAnswer {
  return refusal(
    503,
    'ApiServerUnreachable',
    `the API server cannot be reached: ${(error as Error).message}`,
  );
}
