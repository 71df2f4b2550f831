// Validation of a NodeConfigRevision: a well-formed rendered config, a name derived from its hash, a
// hash that matches the config when created, and an immutable spec afterwards.

import { canonicalJson } from '../util/canonical-json.ts';
import { FieldErrors, integerAt, isObject, objectAt, stringAt } from './field-errors.ts';
import { isKnownHashAlgorithm, revisionMatchesConfig, revisionName } from './hash.ts';
import { MAX_POOL_NAME_LENGTH } from './limits.ts';
import { DNS1123_LABEL } from './patterns.ts';
import { validateNodeConfigSpec } from './validate-node-config.ts';

/** Causes for a NodeConfigRevision; `old` is the stored object on update. */
export function validateNodeConfigRevision(obj: unknown, old?: unknown): FieldErrors['causes'] {
  const errors = new FieldErrors();
  if (!isObject(obj)) {
    errors.typeInvalid('', obj, 'an object');
    return errors.causes;
  }
  const spec = objectAt(errors, 'spec', obj.spec);
  if (!spec) {
    if (obj.spec === undefined || obj.spec === null) errors.required('spec');
    return errors.causes;
  }
  if (isObject(old) && canonicalJson(old.spec ?? null) !== canonicalJson(obj.spec)) {
    errors.forbidden('spec', 'a NodeConfigRevision is immutable; the controller renders a new one instead');
    return errors.causes;
  }
  const pool = stringAt(errors, 'spec.pool', spec.pool);
  const poolValid =
    pool !== undefined && pool.length <= MAX_POOL_NAME_LENGTH && new RegExp(DNS1123_LABEL).test(pool);
  if (pool === undefined) errors.required('spec.pool');
  else if (!poolValid) errors.invalid('spec.pool', pool, 'must be a NodeConfigPool name');
  if (spec.revision === undefined) errors.required('spec.revision');
  integerAt(errors, 'spec.revision', spec.revision, 1);
  const algorithm = stringAt(errors, 'spec.hashAlgorithm', spec.hashAlgorithm);
  if (algorithm === undefined) errors.required('spec.hashAlgorithm');
  else if (!/^v[0-9]+$/.test(algorithm)) errors.invalid('spec.hashAlgorithm', algorithm, 'must look like v1');
  const hash = stringAt(errors, 'spec.hash', spec.hash);
  const hashValid = hash !== undefined && /^[0-9a-f]{64}$/.test(hash);
  if (hash === undefined) errors.required('spec.hash');
  else if (!hashValid) errors.invalid('spec.hash', hash, 'must be 64 lower-case hex digits');
  validateNodeConfigSpec(errors, 'spec.config', spec.config, { inRevision: true });
  if (!Array.isArray(spec.sources)) errors.required('spec.sources');

  const name = obj.metadata?.name;
  if (poolValid && hashValid && typeof name === 'string' && name !== revisionName(pool!, hash!)) {
    errors.invalid(
      'metadata.name',
      name,
      `must be ${revisionName(pool!, hash!)} (<pool>-<first 10 digits of hash>)`,
    );
  }
  // Checked on create only: a later defaulting change must not lock old revisions (e.g. their finalizers).
  const valid = errors.causes.length === 0;
  if (valid && old === undefined && algorithm !== undefined && isKnownHashAlgorithm(algorithm)) {
    if (!revisionMatchesConfig({ hash: hash!, hashAlgorithm: algorithm }, spec.config)) {
      errors.invalid('spec.hash', hash, `does not match spec.config (hashAlgorithm ${algorithm})`);
    }
  }
  return errors.causes;
}
