// The words of a failure report: the one-line message (the Node's message annotation and the Event,
// both cut at 1 KiB) carries the reason and the failing program's own line; the NodeConfigReady
// condition's message carries the whole excerpt (failure-excerpt.ts), cut at CONDITION_MESSAGE_BYTES.

import { truncateUtf8 } from '../../util/truncate-utf8.ts';
import type { FailureRecord } from './failure-record.ts';

/** The cause in a one-line message is cut here, so what follows it (rolled back to …) stays in 1 KiB. */
const CAUSE_IN_MESSAGE_BYTES = 640;

type Reported = Pick<FailureRecord, 'revisionName' | 'reason' | 'cause' | 'excerpt'>;

/** `revision X failed: <reason>: <cause><suffix>`: the annotation's message and the Event's. */
export function failureMessage(record: Reported, suffix: string): string {
  const cause = record.cause !== undefined ? `: ${truncateUtf8(record.cause, CAUSE_IN_MESSAGE_BYTES)}` : '';
  return `revision ${record.revisionName} failed: ${record.reason}${cause}${suffix}`;
}

/** The condition's message: what happened on its first line, then the excerpt. */
export function failedConditionMessage(record: Reported, suffix: string): string {
  const head = `revision ${record.revisionName} failed${suffix}: ${record.reason}`;
  return record.excerpt ? `${head}\n${record.excerpt}` : head;
}
