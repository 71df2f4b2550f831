// metadata.managedFields: who owns which fields of an object, kept the way kube-apiserver keeps it.
// Every write names a manager. A create, update or non-apply patch is an `Update` operation: its
// manager takes the fields it added or changed, from whoever held them. A server-side apply is an
// `Apply` operation: its manager owns exactly the fields of its configuration, fields it stopped
// applying are removed unless someone else owns them, and changing a field another manager owns is a
// conflict unless forced. Decoding, encoding and the conflict error follow kube's wording.

import { canonicalJson } from '../../util/canonical-json.ts';
import { isPlainObject } from '../../util/plain-object.ts';
import { ApiError } from '../errors.ts';
import { FieldSet, pathString } from './field-set.ts';
import type { FieldType } from './field-types.ts';
import { appliedFieldSet, compareValues, fullFieldSet } from './structured-merge.ts';

export type Operation = 'Apply' | 'Update';

/** One manager's fields (a metav1.ManagedFieldsEntry, decoded). */
export interface Manager {
  manager: string;
  operation: Operation;
  apiVersion: string;
  /** '' for the main resource. */
  subresource: string;
  time?: string;
  set: FieldSet;
}

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** The manager kube gives the fields of an object that had no managedFields when it is first applied. */
export const BEFORE_FIRST_APPLY = 'before-first-apply';
/** kube keeps at most this many Update managers; older ones merge into `ancient-changes` per version. */
export const MAX_UPDATE_MANAGERS = 10;
export const ANCIENT_CHANGES = 'ancient-changes';

type Json = unknown;
type JsonMap = Record<string, Json>;

function isMap(value: Json): value is JsonMap {
  return isPlainObject(value);
}

/** Managers are told apart by name, operation, subresource and (for Update only) API version. */
function identity(m: Pick<Manager, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return JSON.stringify([
    m.manager,
    m.operation,
    m.operation === 'Update' ? m.apiVersion : '',
    m.subresource,
  ]);
}

/** `[{}]`: the client asks for managedFields to be cleared. */
export function isResetRequest(entries: Json): boolean {
  return (
    Array.isArray(entries) &&
    entries.length === 1 &&
    isMap(entries[0]) &&
    Object.keys(entries[0]).length === 0
  );
}

/** Decodes metadata.managedFields; throws an Error naming the entry and field that is wrong. */
export function decodeManagedFields(entries: Json): Manager[] {
  if (entries === undefined || entries === null) return [];
  if (!Array.isArray(entries)) throw new Error('managedFields: must be a list');
  return entries.map((entry, i) => {
    const at = `managedFields[${i}]`;
    if (!isMap(entry)) throw new Error(`${at}: must be an object`);
    const { manager, operation, apiVersion, time, fieldsType, fieldsV1, subresource } = entry;
    if (operation !== 'Apply' && operation !== 'Update') {
      throw new Error(`${at}.operation: must be \`Apply\` or \`Update\``);
    }
    if (fieldsType !== 'FieldsV1') throw new Error(`${at}.fieldsType: must be \`FieldsV1\``);
    let set: FieldSet;
    try {
      set = FieldSet.fromFieldsV1(fieldsV1 ?? {});
    } catch (error) {
      throw new Error(`${at}.fieldsV1: ${(error as Error).message}`);
    }
    const decoded: Manager = {
      manager: typeof manager === 'string' ? manager : '',
      operation,
      apiVersion: typeof apiVersion === 'string' ? apiVersion : '',
      subresource: typeof subresource === 'string' ? subresource : '',
      set,
    };
    if (typeof time === 'string') decoded.time = time;
    return decoded;
  });
}

/** Encodes managers as metadata.managedFields in kube's order (operation, time, manager, version, subresource). */
export function encodeManagedFields(managers: readonly Manager[]): JsonMap[] {
  const sorted = [...managers].sort(
    (p, q) =>
      compare(p.operation, q.operation) ||
      compare(p.time ?? '', q.time ?? '') ||
      compare(p.manager, q.manager) ||
      compare(p.apiVersion, q.apiVersion) ||
      compare(p.subresource, q.subresource),
  );
  return sorted.map((m) => ({
    manager: m.manager,
    operation: m.operation,
    apiVersion: m.apiVersion,
    ...(m.time !== undefined ? { time: m.time } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: m.set.toFieldsV1(),
    ...(m.subresource !== '' ? { subresource: m.subresource } : {}),
  }));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** What a write is about: the object's type, the version and subresource written, and the time. */
export interface WriteScope {
  type: FieldType;
  apiVersion: string;
  /** '' for the main resource. */
  subresource: string;
  /** The resource has a status subresource: main writes own no status, status writes own only status. */
  statusSubresource: boolean;
  now: string;
}

/** Server-owned metadata nobody manages (kube's stripMeta set). */
const SERVER_METADATA = [
  'name',
  'namespace',
  'creationTimestamp',
  'selfLink',
  'uid',
  'generation',
  'managedFields',
  'resourceVersion',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
];

/** `.metadata` itself is nobody's (kube strips it like the server-owned fields below it). */
const UNOWNED_PATHS = (() => {
  const set = FieldSet.empty();
  set.insert(['f:metadata']);
  return set;
})();

/** The part of an object whose fields are managed through this write. */
export function managedPart(object: Json, scope: WriteScope): JsonMap {
  if (!isMap(object)) return {};
  const out: JsonMap = {};
  for (const [k, v] of Object.entries(object)) {
    if (k === 'apiVersion' || k === 'kind' || v === undefined) continue;
    if (scope.statusSubresource && (scope.subresource === 'status') !== (k === 'status')) continue;
    if (k === 'metadata' && isMap(v)) {
      const meta: JsonMap = { ...v };
      for (const f of SERVER_METADATA) delete meta[f];
      if (Object.keys(meta).length > 0) out.metadata = meta;
      continue;
    }
    out[k] = v;
  }
  return out;
}

function findManager(managers: readonly Manager[], wanted: Omit<Manager, 'set'>): Manager | undefined {
  const id = identity(wanted);
  return managers.find((m) => identity(m) === id);
}

/**
 * Ownership after an Update operation (create, update, non-apply patch) by `manager`: the fields it
 * added or changed become its own and leave every other manager; removed fields leave everyone.
 */
export function recordUpdate(
  before: Json,
  after: Json,
  managers: readonly Manager[],
  manager: string,
  scope: WriteScope,
): Manager[] {
  const diff = compareValues(managedPart(before, scope), managedPart(after, scope), scope.type);
  const changed = diff.added.union(diff.modified).difference(UNOWNED_PATHS);
  const me: Omit<Manager, 'set'> = {
    manager,
    operation: 'Update',
    apiVersion: scope.apiVersion,
    subresource: scope.subresource,
  };
  const mine = findManager(managers, me);
  const out: Manager[] = [];
  for (const m of managers) {
    if (m === mine) continue;
    const set = m.set.difference(changed).difference(diff.removed);
    if (!set.isEmpty()) out.push({ ...m, set });
  }
  const kept = mine ? mine.set.difference(diff.removed) : FieldSet.empty();
  if (!changed.isEmpty()) out.push({ ...me, time: scope.now, set: kept.union(changed) });
  else if (mine && !kept.isEmpty()) out.push({ ...mine, set: kept });
  return capUpdateManagers(out);
}

/**
 * Bounds the Update managers as kube does (capManagersManager): while there are more than
 * MAX_UPDATE_MANAGERS, the oldest are merged, per API version, into an `ancient-changes` manager that
 * takes the time of the newest entry merged into it.
 */
export function capUpdateManagers(managers: Manager[], max = MAX_UPDATE_MANAGERS): Manager[] {
  const updaters = managers.filter((m) => m.operation === 'Update');
  if (updaters.length <= max) return managers;
  const seconds = (m: Manager) => (m.time ? Date.parse(m.time) || 0 : 0);
  updaters.sort((a, b) => seconds(a) - seconds(b) || compare(a.manager, b.manager));
  let out = [...managers];
  let count = updaters.length;
  const firstOfVersion = new Map<string, Manager>();
  for (const m of updaters) {
    if (count <= max) break;
    const first = firstOfVersion.get(m.apiVersion);
    if (!first) {
      firstOfVersion.set(m.apiVersion, m);
      continue;
    }
    const bucketId = {
      manager: ANCIENT_CHANGES,
      operation: 'Update' as const,
      apiVersion: m.apiVersion,
      subresource: '',
    };
    let bucket = findManager(out, bucketId);
    if (!bucket) {
      bucket = { ...bucketId, set: first.set };
      out = out.filter((x) => x !== first);
      out.push(bucket);
    }
    const merged: Manager = { ...bucket, set: m.set.union(bucket.set) };
    if (m.time !== undefined) merged.time = m.time;
    out = out.filter((x) => x !== bucket && x !== m);
    out.push(merged);
    count--;
  }
  return out;
}

/** The managers of a live object about to be applied to; an object without any gets `before-first-apply`. */
export function managersForApply(live: Json, managers: Manager[], scope: WriteScope): Manager[] {
  if (managers.length > 0 || !isMap(live)) return managers;
  const set = fullFieldSet(managedPart(live, scope), scope.type).difference(UNOWNED_PATHS);
  if (set.isEmpty()) return managers;
  return [
    {
      manager: BEFORE_FIRST_APPLY,
      operation: 'Update',
      apiVersion: scope.apiVersion,
      subresource: scope.subresource,
      time: scope.now,
      set,
    },
  ];
}

export interface ApplyPlan {
  applier: Omit<Manager, 'set' | 'time'>;
  /** The fields of the applied configuration. */
  applied: FieldSet;
  /** Fields the applier owned before and no longer applies, and nobody else owns: to be removed. */
  released: FieldSet;
  /** What stays owned after the apply (the applied fields and everyone else's). */
  kept: FieldSet;
}

/** The ownership side of an apply, before the object is written: what the applier owns and gives up. */
export function planApply(
  config: Json,
  managers: readonly Manager[],
  manager: string,
  scope: WriteScope,
): ApplyPlan {
  const applier = {
    manager,
    operation: 'Apply' as const,
    apiVersion: scope.apiVersion,
    subresource: scope.subresource,
  };
  const applied = appliedFieldSet(managedPart(config, scope), scope.type);
  const previous = findManager(managers, applier);
  let others = FieldSet.empty();
  for (const m of managers) if (m !== previous) others = others.union(m.set);
  const kept = applied.union(others);
  const released = previous ? previous.set.difference(kept) : FieldSet.empty();
  return { applier, applied, released, kept };
}

export interface Conflict {
  manager: Manager;
  path: string[];
}

/**
 * Ownership after an apply, given the live object and the one about to be written. Throws the 409
 * Conflict kube answers when the apply changes fields other managers own, unless `force`. `allowed`
 * are fields that may be taken over without force (kubectl's client-side-apply fields, see below).
 */
export function recordApply(
  live: Json,
  after: Json,
  managers: readonly Manager[],
  plan: ApplyPlan,
  force: boolean,
  scope: WriteScope,
  allowed?: FieldSet,
): Manager[] {
  const diff = compareValues(managedPart(live, scope), managedPart(after, scope), scope.type);
  const changed = diff.added.union(diff.modified);
  const previous = findManager(managers, plan.applier);
  const conflicts: Conflict[] = [];
  const out: Manager[] = [];
  for (const m of managers) {
    if (m === previous) continue;
    for (const path of m.set.intersection(changed).paths()) conflicts.push({ manager: m, path });
    const set = m.set.difference(changed).difference(diff.removed);
    if (!set.isEmpty()) out.push({ ...m, set });
  }
  if (!force && conflicts.length > 0) {
    const unexcused = allowed ? conflicts.filter((c) => !allowed.has(c.path)) : conflicts;
    if (unexcused.length > 0) throw applyConflictError(unexcused);
  }
  if (!plan.applied.isEmpty()) {
    const unchanged =
      previous !== undefined &&
      changed.isEmpty() &&
      diff.removed.isEmpty() &&
      previous.set.difference(plan.applied).isEmpty() &&
      plan.applied.difference(previous.set).isEmpty();
    const entry: Manager = { ...plan.applier, set: plan.applied };
    const time = unchanged ? previous.time : scope.now;
    if (time !== undefined) entry.time = time;
    out.push(entry);
  }
  return capUpdateManagers(out);
}

/**
 * Fields kubectl may take over from its own client-side apply without --force-conflicts: those of
 * the last-applied-configuration annotation whose live value still matches it (kube's
 * lastAppliedManager, for the field manager "kubectl" only).
 */
export function lastAppliedFields(live: Json, scope: WriteScope): FieldSet | undefined {
  const annotations = isMap(live) && isMap(live.metadata) ? live.metadata.annotations : undefined;
  const text = isMap(annotations) ? annotations[LAST_APPLIED_ANNOTATION] : undefined;
  if (typeof text !== 'string') return undefined;
  let lastApplied: Json;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isMap(lastApplied)) return undefined;
  const appliedPart = managedPart(lastApplied, scope);
  const diff = compareValues(appliedPart, managedPart(live, scope), scope.type);
  return appliedFieldSet(appliedPart, scope.type).difference(diff.modified);
}

/**
 * The last-applied-configuration kubectl's server-side apply leaves behind when the object already
 * had one, so a later client-side apply still diffs against what was applied (kube's lastAppliedUpdater).
 */
export function lastAppliedValue(config: JsonMap): string {
  const copy = structuredClone(config);
  if (isMap(copy.metadata) && isMap(copy.metadata.annotations))
    delete copy.metadata.annotations[LAST_APPLIED_ANNOTATION];
  // Go encodes maps with sorted keys; so does kube's annotation.
  return canonicalJson(copy);
}

function printManager(m: Manager): string {
  let text = JSON.stringify(m.manager);
  if (m.subresource !== '') text += ` with subresource ${JSON.stringify(m.subresource)}`;
  return m.operation === 'Update' ? `${text} using ${m.apiVersion}` : text;
}

/** kube's apply conflict: 409 Conflict, one FieldManagerConflict cause per field. */
export function applyConflictError(conflicts: readonly Conflict[]): ApiError {
  const sorted = [...conflicts].sort(
    (a, b) =>
      compare(printManager(a.manager), printManager(b.manager)) ||
      compare(pathString(a.path), pathString(b.path)),
  );
  const causes = sorted.map((c) => ({
    type: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.manager)}`,
    field: pathString(c.path),
  }));
  let message: string;
  if (sorted.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(sorted[0]!.manager)}: ${pathString(sorted[0]!.path)}`;
  } else {
    const lines: string[] = [];
    let last = '';
    for (const c of sorted) {
      const who = printManager(c.manager);
      if (who !== last) lines.push(`conflicts with ${who}:`);
      last = who;
      lines.push(`- ${pathString(c.path)}`);
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, { causes });
}
