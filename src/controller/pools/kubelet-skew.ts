// The kubelet a pool's revision pins, as the controller sees it (issue 35). Two uses:
// - the node verdict (node-snapshot.ts): a node is not healthy until its Node reports the kubelet
//   version its revision pins, so the soak starts, and the node counts as updated, only then;
// - the skew hold: a revision whose kubelet the version skew policy does not allow beside the API
//   server (kubelet newer than the server, or more than three minors older) is refused before any node
//   starts it. It is held like a revision that does not render (render-hold.ts): nodes that have not
//   started it stay on the last complete revision, and a pool condition and a Warning Event say why,
//   naming the package, its version and the server's version. The hold is asked again on every
//   reconcile, so it lifts by itself once the control plane has been upgraded.
//
// The server's version is GET /version (public on every cluster), read at most once per
// SERVER_VERSION_TTL_MS, and only while some target pins a kubelet.

import {
  type KubeletPin,
  kubeletPin,
  kubeletSkewProblem,
  type ServerVersion,
} from '../../api/kubelet-version.ts';
import type { NodeConfigRevision } from '../../api/types.ts';
import type { ControllerContext } from '../controller-context.ts';
import type { NumberedRevision } from '../rollout/types.ts';
import type { RenderHold } from './render-hold.ts';

/** The reason of Progressing and Complete, and of the Warning Event, while the skew holds a revision. */
export const KUBELET_SKEW_REASON = 'KubeletVersionSkew';

/** How long a read of /version is trusted: a control-plane upgrade lifts a hold within this. */
export const SERVER_VERSION_TTL_MS = 30_000;

// Revisions are immutable: each object's pin is worked out once.
const pins = new WeakMap<NodeConfigRevision, { pin: KubeletPin | undefined }>();

/** The kubelet the named revision pins, from the revision cache (undefined: none, or not cached). */
export function revisionKubeletPin(ctx: ControllerContext, revision: string): KubeletPin | undefined {
  const object = ctx.informers.revisions.get(revision);
  if (!object) return undefined;
  let known = pins.get(object);
  if (!known) {
    known = { pin: kubeletPin(object.spec.config) };
    pins.set(object, known);
  }
  return known.pin;
}

export class KubeletSkewCheck {
  private readonly ctx: ControllerContext;
  /** The last answer (or, after a failed read, the one before it), asked again after the TTL. */
  private cached: { at: number; version: ServerVersion | undefined } | undefined;
  private reading: Promise<ServerVersion | undefined> | undefined;

  constructor(ctx: ControllerContext) {
    this.ctx = ctx;
  }

  /**
   * The hold on `target` when its kubelet breaks the skew policy; none for the last complete revision
   * (where a hold would send nodes: it is what they run), a revision pinning no kubelet, or a server
   * whose version cannot be read (logged; nothing to judge against).
   */
  async hold(
    target: NumberedRevision | undefined,
    lastComplete: NumberedRevision | undefined,
    now: number,
  ): Promise<RenderHold | undefined> {
    if (!target || target.name === lastComplete?.name) return undefined;
    const pin = revisionKubeletPin(this.ctx, target.name);
    if (!pin?.minor) return undefined;
    const server = await this.serverVersion(now);
    if (!server) return undefined;
    const problem = kubeletSkewProblem(pin, server);
    if (!problem) return undefined;
    const to = lastComplete
      ? `stay on ${lastComplete.name} (the last complete revision)`
      : 'keep what they run';
    return {
      revision: target.name,
      ...(lastComplete ? { allowed: lastComplete.name } : {}),
      reason: KUBELET_SKEW_REASON,
      conditionReason: KUBELET_SKEW_REASON,
      message: `rollout of ${target.name} refused: ${problem}; nodes ${to}`,
    };
  }

  private async serverVersion(now: number): Promise<ServerVersion | undefined> {
    if (this.cached && now - this.cached.at < SERVER_VERSION_TTL_MS) return this.cached.version;
    this.reading ??= this.ctx.client
      .get<ServerVersion>('/version')
      .then((version) => {
        this.cached = { at: now, version };
        return version;
      })
      .catch((error: Error) => {
        // Logged once per TTL; the version read before, if any, stands meanwhile.
        const version = this.cached?.version;
        this.cached = { at: now, version };
        const what = version ? 'judging kubelet skew by the last one read' : 'kubelet skew not judged';
        this.ctx.logger.warn({ err: error.message }, `cannot read the API server version: ${what}`);
        return version;
      })
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
  }
}
