// The merge patches the controller writes to Nodes. Every one carries all the annotations of its step,
// so a node is never half-started: desired-revision and update-started arrive together, a cordon comes
// with the marker that says the controller owns it.

import { DESIRED_REVISION_ANNOTATION, REBOOT_REQUESTED_ANNOTATION } from '../api/node-protocol.ts';
import {
  CORDONED_BY_ANNOTATION,
  CORDONED_BY_VALUE,
  DRAINING_FOR_ANNOTATION,
  UPDATE_STARTED_ANNOTATION,
} from './annotations.ts';

export type NodePatch = {
  metadata: { annotations: Record<string, string | null>; resourceVersion?: string };
  spec?: { unschedulable: boolean | null };
};

function stamp(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * Gives the node its revision (after a drain, the drain marker goes). With `rebootId`, the reboot
 * request comes in the same patch: a revision that reboots anyway answers it with its own reboot.
 */
export function startPatch(
  revision: string,
  startedAt: number | undefined,
  now: number,
  rebootId?: string,
): NodePatch {
  return {
    metadata: {
      annotations: {
        [DESIRED_REVISION_ANNOTATION]: revision,
        [UPDATE_STARTED_ANNOTATION]: stamp(startedAt ?? now),
        [DRAINING_FOR_ANNOTATION]: null,
        ...(rebootId !== undefined ? { [REBOOT_REQUESTED_ANNOTATION]: rebootId } : {}),
      },
    },
  };
}

/** A reboot request's id: the time it is made (a new value is a new request). */
export function rebootRequestId(now: number): string {
  return stamp(now);
}

/** Gives a node that never applied anything its first revision. */
export function bootstrapPatch(revision: string): NodePatch {
  return {
    metadata: { annotations: { [DESIRED_REVISION_ANNOTATION]: revision, [DRAINING_FOR_ANNOTATION]: null } },
  };
}

/**
 * Cordons the node for a drain before it gets `revision`. The resourceVersion makes the patch fail
 * (409) if the node changed since we looked: we only mark as ours a cordon we really set.
 */
export function drainPatch(
  revision: string,
  now: number,
  alreadyCordoned: boolean,
  resourceVersion?: string,
): NodePatch {
  return {
    metadata: {
      annotations: {
        [DRAINING_FOR_ANNOTATION]: revision,
        [UPDATE_STARTED_ANNOTATION]: stamp(now),
        ...(alreadyCordoned ? {} : { [CORDONED_BY_ANNOTATION]: CORDONED_BY_VALUE }),
      },
      ...(resourceVersion ? { resourceVersion } : {}),
    },
    ...(alreadyCordoned ? {} : { spec: { unschedulable: true } }),
  };
}

/** Lifts our cordon (only ours: the marker says so) and forgets a drain. */
export function uncordonPatch(ours: boolean, clearDrain: boolean): NodePatch {
  return {
    metadata: {
      annotations: {
        ...(ours ? { [CORDONED_BY_ANNOTATION]: null } : {}),
        ...(clearDrain ? { [DRAINING_FOR_ANNOTATION]: null } : {}),
      },
    },
    ...(ours ? { spec: { unschedulable: null } } : {}),
  };
}

/** A fresh deadline for a node whose update is retried (after a paused pool is resumed). */
export function restampPatch(now: number): NodePatch {
  return { metadata: { annotations: { [UPDATE_STARTED_ANNOTATION]: stamp(now) } } };
}
