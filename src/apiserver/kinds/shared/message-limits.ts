// Caps on the free-text messages kinds carry, so no status or Event can grow without bound (issue 32).
// metav1.Condition's message is at most 32 KiB (apimachinery's ValidateConditions, maxMessageLen): kube
// checks it where a type uses metav1.Condition, nodeherd's CRDs through their schemas' maxLength, and
// this server on Nodes' conditions too (NodeCondition has no cap in kube, but a node token could keep a
// MiB in every Node's status, and in every revision of its history). An Event's message is at most
// 1 KiB, kube's NoteLengthLimit, which kube enforces on Events with an eventTime (every events.k8s.io
// Event) and this server on every Event, as nodeherd's own recorder truncates to it. And an Event is at
// most 64 KiB in all (413): without that, the bytes would move to annotations (256 KiB) or the open
// reference fields, and one node's token could still store Events of 1 MiB.

import { ApiError, type StatusCause } from '../../errors.ts';
import { invalid, tooLong } from '../../schema/field-errors.ts';
import type { KubeObject } from '../../storage/types.ts';

export const MAX_CONDITION_MESSAGE_BYTES = 32 * 1024;
export const MAX_EVENT_MESSAGE_BYTES = 1024;
export const MAX_EVENT_BYTES = 64 * 1024;

/**
 * Causes for conditions at `path` whose message is over 32 KiB. A condition the stored object already
 * carries with the same type and message passes (ratcheting), so an object stored before the cap can
 * still be updated.
 */
export function conditionMessageCauses(
  conditions: unknown,
  oldConditions: unknown,
  path: string,
): StatusCause[] {
  if (!Array.isArray(conditions)) return [];
  const kept = new Set(
    (Array.isArray(oldConditions) ? oldConditions : []).map(
      (c: KubeObject) => `${c?.type}\u0000${c?.message}`,
    ),
  );
  const causes: StatusCause[] = [];
  for (const [i, condition] of conditions.entries()) {
    const message = (condition as KubeObject | null)?.message;
    if (typeof message !== 'string' || message.length * 3 <= MAX_CONDITION_MESSAGE_BYTES) continue;
    if (Buffer.byteLength(message) <= MAX_CONDITION_MESSAGE_BYTES) continue;
    if (kept.has(`${(condition as KubeObject).type}\u0000${message}`)) continue;
    causes.push(tooLong(`${path}[${i}].message`, MAX_CONDITION_MESSAGE_BYTES));
  }
  return causes;
}

/** kube's wording for an Event message over NoteLengthLimit, at `message` (also for events.k8s.io's note). */
export function eventMessageCauses(event: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const message = event.message;
  if (typeof message !== 'string' || message.length <= MAX_EVENT_MESSAGE_BYTES / 3) return [];
  if (Buffer.byteLength(message) <= MAX_EVENT_MESSAGE_BYTES || message === old?.message) return [];
  return [invalid('message', '', `can have at most ${MAX_EVENT_MESSAGE_BYTES} characters`)];
}

/**
 * Refuses an Event larger than 64 KiB once serialized with 413, as the store refuses any object over
 * 1.5 MiB; an Event stored larger before the cap may be updated as long as it does not grow.
 */
export function assertEventSize(event: KubeObject, old: KubeObject | undefined): void {
  const bytes = Buffer.byteLength(JSON.stringify(event));
  if (bytes <= MAX_EVENT_BYTES) return;
  if (old !== undefined && bytes <= Buffer.byteLength(JSON.stringify(old))) return;
  throw new ApiError(
    413,
    'RequestEntityTooLarge',
    `Event ${JSON.stringify(event.metadata?.name ?? '')} is ${bytes} bytes: an Event may be at most ${MAX_EVENT_BYTES} bytes`,
  );
}
