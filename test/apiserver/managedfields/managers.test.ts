// Unit tests of field ownership: Update and Apply operations, conflicts in kube's words, and
// managedFields encoding.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../src/apiserver/errors.ts';
import { FieldSet } from '../../../src/apiserver/managedfields/field-set.ts';
import { patchMetaFieldType } from '../../../src/apiserver/managedfields/field-types.ts';
import {
  ANCIENT_CHANGES,
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  isResetRequest,
  lastAppliedFields,
  managersForApply,
  planApply,
  recordApply,
  recordUpdate,
  type WriteScope,
} from '../../../src/apiserver/managedfields/managers.ts';
import { mergeApplied, removeFields } from '../../../src/apiserver/managedfields/structured-merge.ts';
import { builtinPatchMeta } from '../../../src/apiserver/patch/builtin-patch-meta.ts';

const scope: WriteScope = {
  type: patchMetaFieldType(builtinPatchMeta('ConfigMap')),
  apiVersion: 'v1',
  subresource: '',
  statusSubresource: false,
  now: '2026-01-01T00:00:00Z',
};
const later: WriteScope = { ...scope, now: '2026-01-01T00:01:00Z' };

const cm = (data: Record<string, string>, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'default', uid: 'u', ...(labels ? { labels } : {}) },
  data,
});

/** One apply as the object service runs it: plan, merge, prune, then record. */
function apply(live: any, config: any, managers: any[], manager: string, force = false, s = scope) {
  const current = live ? managersForApply(live, managers, s) : managers;
  const plan = planApply(config, current, manager, s);
  const merged = removeFields(mergeApplied(live ?? {}, config, s.type), plan.released, plan.kept, s.type);
  return { object: merged as any, managers: recordApply(live ?? {}, merged, current, plan, force, s) };
}

test('a create records an Update manager owning everything it wrote, server metadata excluded', () => {
  const managers = recordUpdate({}, cm({ a: '1' }, { app: 'x' }), [], 'kubectl-create', scope);
  assert.deepEqual(encodeManagedFields(managers), [
    {
      manager: 'kubectl-create',
      operation: 'Update',
      apiVersion: 'v1',
      time: scope.now,
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:data': { '.': {}, 'f:a': {} },
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      },
    },
  ]);
});

test('an Update takes the fields it changes from other managers and keeps its time when it changes nothing', () => {
  const created = recordUpdate({}, cm({ a: '1', b: '2' }), [], 'creator', scope);
  const edited = recordUpdate(cm({ a: '1', b: '2' }), cm({ a: '9', b: '2' }), created, 'kubectl-edit', later);
  const byName = Object.fromEntries(encodeManagedFields(edited).map((e) => [e.manager, e]));
  assert.deepEqual(byName.creator!.fieldsV1, { 'f:data': { '.': {}, 'f:b': {} } });
  assert.deepEqual(byName['kubectl-edit']!.fieldsV1, { 'f:data': { 'f:a': {} } });
  assert.equal(byName['kubectl-edit']!.time, later.now);
  const noop = recordUpdate(cm({ a: '9', b: '2' }), cm({ a: '9', b: '2' }), edited, 'kubectl-edit', {
    ...later,
    now: 'never',
  });
  assert.deepEqual(encodeManagedFields(noop), encodeManagedFields(edited));
});

test('apply: create, re-apply, and a field dropped from the configuration is removed', () => {
  const first = apply(undefined, cm({ a: '1', b: '2' }), [], 'mgr');
  assert.deepEqual(encodeManagedFields(first.managers)[0]!.fieldsV1, { 'f:data': { 'f:a': {}, 'f:b': {} } });
  const second = apply(first.object, cm({ a: '1' }), first.managers, 'mgr');
  assert.deepEqual(second.object.data, { a: '1' });
  assert.deepEqual(encodeManagedFields(second.managers)[0]!.fieldsV1, { 'f:data': { 'f:a': {} } });
});

test('apply conflicts with another manager in kube words; force takes the field over', () => {
  const first = apply(undefined, cm({ a: '1', b: '2' }), [], 'kubectl');
  const edited = recordUpdate(first.object, cm({ a: '1', b: '3' }), first.managers, 'kubectl-edit', later);
  assert.throws(
    () => apply(cm({ a: '1', b: '3' }), cm({ a: '5', b: '4' }, { x: 'y' }), edited, 'other'),
    (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 409);
      assert.equal(err.reason, 'Conflict');
      assert.equal(
        err.message,
        'Apply failed with 2 conflicts: conflicts with "kubectl":\n- .data.a\nconflicts with "kubectl-edit" using v1:\n- .data.b',
      );
      assert.deepEqual(err.toStatus().details, {
        causes: [
          { reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.data.a' },
          {
            reason: 'FieldManagerConflict',
            message: 'conflict with "kubectl-edit" using v1',
            field: '.data.b',
          },
        ],
      });
      return true;
    },
  );
  assert.throws(
    () => apply(cm({ a: '1', b: '3' }), cm({ b: '4' }), edited, 'other'),
    /^Error: Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: \.data\.b$/,
  );
  // Applying the same value another manager set is no conflict: both own it.
  const shared = apply(cm({ a: '1', b: '3' }), cm({ b: '3' }), edited, 'other');
  assert.equal(shared.managers.filter((m) => m.set.has(['f:data', 'f:b'])).length, 2);
  const forced = apply(cm({ a: '1', b: '3' }), cm({ b: '4' }), edited, 'other', true);
  assert.equal(forced.object.data.b, '4');
  const owners = forced.managers.filter((m) => m.set.has(['f:data', 'f:b'])).map((m) => m.manager);
  assert.deepEqual(owners, ['other']);
});

test('a field another manager also owns stays when the applier stops applying it', () => {
  const first = apply(undefined, cm({ a: '1' }), [], 'one');
  const both = apply(first.object, cm({ a: '1' }), first.managers, 'two');
  const { data: _, ...withoutData } = cm({});
  const dropped = apply(both.object, withoutData, both.managers, 'one');
  assert.deepEqual(dropped.object.data, { a: '1' });
  assert.deepEqual(
    dropped.managers.map((m) => m.manager),
    ['two'],
  );
});

test('an object without managedFields gives its fields to before-first-apply on the first apply', () => {
  const applied = apply(cm({ a: '1', b: '2' }), cm({ a: '2' }), [], 'mgr', true);
  const entries = encodeManagedFields(applied.managers);
  assert.deepEqual(
    entries.map((e) => [e.manager, e.operation, e.fieldsV1]),
    [
      ['mgr', 'Apply', { 'f:data': { 'f:a': {} } }],
      ['before-first-apply', 'Update', { 'f:data': { '.': {}, 'f:b': {} } }],
    ],
  );
});

test('kubectl may take over its client-side-applied fields whose live value still matches', () => {
  const lastApplied = JSON.stringify(cm({ a: '1' }));
  const live = cm({ a: '1' });
  (live.metadata as any).annotations = { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied };
  const allowed = lastAppliedFields(live, scope);
  assert.ok(allowed);
  assert.equal(allowed.has(['f:data', 'f:a']), true);
  const drifted = { ...live, data: { a: 'edited' } };
  assert.equal(lastAppliedFields(drifted, scope)!.has(['f:data', 'f:a']), false);
});

test('managedFields decode with errors that name the entry, and [{}] asks for a reset', () => {
  assert.throws(
    () => decodeManagedFields([{ operation: 'Patch', fieldsType: 'FieldsV1' }]),
    /managedFields\[0\]\.operation/,
  );
  assert.throws(() => decodeManagedFields([{ operation: 'Apply', fieldsType: 'FieldsV2' }]), /fieldsType/);
  assert.equal(isResetRequest([{}]), true);
  assert.equal(isResetRequest([]), false);
  const entries = [
    {
      manager: 'm',
      operation: 'Update',
      apiVersion: 'v1',
      time: 't',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:a': {} } },
      subresource: 'status',
    },
  ];
  assert.deepEqual(encodeManagedFields(decodeManagedFields(entries)), entries);
  assert.ok(decodeManagedFields(entries)[0]!.set instanceof FieldSet);
});

test('more than ten Update managers: the oldest merge into ancient-changes, as kube caps them', () => {
  let object: any = cm({});
  let managers = recordUpdate({}, object, [], 'creator', scope);
  for (let i = 0; i < 12; i++) {
    const next = cm({ ...object.data, [`k${i}`]: 'v' });
    const at = { ...scope, now: `2026-01-01T00:${String(10 + i).padStart(2, '0')}:00Z` };
    managers = recordUpdate(object, next, managers, `editor-${i}`, at);
    object = next;
  }
  const updaters = managers.filter((m) => m.operation === 'Update');
  assert.equal(updaters.length, 10);
  const ancient = managers.find((m) => m.manager === ANCIENT_CHANGES)!;
  assert.ok(ancient, 'an ancient-changes manager holds the oldest fields');
  for (const key of ['k0', 'k1', 'k2']) assert.equal(ancient.set.has(['f:data', `f:${key}`]), true, key);
  assert.equal(
    managers.some((m) => m.manager === 'editor-11'),
    true,
  );
  // Apply managers are never merged.
  const applier = {
    manager: 'a',
    operation: 'Apply' as const,
    apiVersion: 'v1',
    subresource: '',
    set: FieldSet.empty(),
  };
  assert.ok(capUpdateManagers([...managers, applier]).includes(applier));
});
