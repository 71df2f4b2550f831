// NodeConfigPool spec.prestage: the controller tells the nodes next in line to download what the
// target revision's packages need before their turn (nodeherd.io/prestage-revision), so a node's
// disruptive part holds only install and restart, and a download that fails (a version the
// repositories do not have) fails the node before it is cordoned. Its own file: the pool schema is at
// its size cap. docs/operations.md, "Pre-staging packages".

import { type FieldErrors, integerAt, isObject, objectAt } from './field-errors.ts';
import { defaulted, integer, object, optional } from './schema-builder.ts';

/** Default of spec.prestage.maxConcurrent: a few nodes at a time, so a mirror is not stampeded. */
export const DEFAULT_PRESTAGE_MAX_CONCURRENT = 3;
export const MAX_PRESTAGE_CONCURRENT = 1000;
/**
 * Default of spec.prestage.timeoutSeconds: 15 minutes, several times what a kubelet-sized download
 * takes over a slow mirror, so only an agent that does not answer at all (an older release, hung)
 * reaches it. docs/operations.md, "Pre-staging packages".
 */
export const DEFAULT_PRESTAGE_TIMEOUT_SECONDS = 900;
/** A day: beyond it a node's turn would wait longer than any maintenance window lasts. */
export const MAX_PRESTAGE_TIMEOUT_SECONDS = 86_400;

export const prestageSchema = optional(
  object(
    {
      maxConcurrent: defaulted(
        integer(
          'Nodes of the pool downloading at once (told to pre-stage and not answered yet); the bound that keeps a mirror from being stampeded. Nodes that finished their download keep it until their turn and do not count.',
          { minimum: 1, maximum: MAX_PRESTAGE_CONCURRENT },
        ),
        DEFAULT_PRESTAGE_MAX_CONCURRENT,
      ),
      timeoutSeconds: defaulted(
        integer(
          'How long the controller waits for a node whose turn it is to answer its pre-stage ask (from when it was asked, nodeherd.io/prestage-asked-at). An agent that has not answered by then (a release before pre-staging, a hung download) starts its turn anyway and downloads inside it, as without pre-staging; a Warning Event PrestageTimedOut names the node. An answer Failed is a failure whatever the time.',
          { minimum: 1, maximum: MAX_PRESTAGE_TIMEOUT_SECONDS },
        ),
        DEFAULT_PRESTAGE_TIMEOUT_SECONDS,
      ),
    },
    'Pre-staging (RollingUpdate only): the nodes next in line download the target revision’s packages (apt-get --download-only) before their turn; a node starts only once its download succeeded, and a failed download fails it before it is cordoned or drained. Absent: packages download inside the node’s turn.',
  ),
);

/** The CRD's rule: pre-staging follows RollingUpdate's batches, the other strategies hand nodes out themselves. */
export const PRESTAGE_STRATEGY_RULE = {
  rule: "!has(self.prestage) || !has(self.updateStrategy) || !has(self.updateStrategy.type) || self.updateStrategy.type == 'RollingUpdate'",
  message: 'prestage is supported only with updateStrategy.type RollingUpdate',
  fieldPath: '.prestage',
  reason: 'FieldValueForbidden',
} as const;

/** spec.prestage, with the same refusal as PRESTAGE_STRATEGY_RULE. */
export function validatePrestage(errors: FieldErrors, spec: Record<string, unknown>): void {
  const prestage = objectAt(errors, 'spec.prestage', spec.prestage);
  if (!prestage) return;
  integerAt(errors, 'spec.prestage.maxConcurrent', prestage.maxConcurrent, 1, MAX_PRESTAGE_CONCURRENT);
  integerAt(errors, 'spec.prestage.timeoutSeconds', prestage.timeoutSeconds, 1, MAX_PRESTAGE_TIMEOUT_SECONDS);
  const type = isObject(spec.updateStrategy)
    ? (spec.updateStrategy.type ?? 'RollingUpdate')
    : 'RollingUpdate';
  if (typeof type === 'string' && type !== 'RollingUpdate')
    errors.forbidden(
      'spec.prestage',
      `is supported only with updateStrategy.type RollingUpdate, not ${type}`,
    );
}
