// What kube's decoder enforces on built-in kinds before any validation runs, and so answers with
// 400 BadRequest (`<Kind> in version "<v>" cannot be handled as a <Kind>: <decode error>`):
// - metav1.Time / MicroTime fields must be RFC 3339 strings (go-time.ts); they come out normalised to
//   UTC (Time to whole seconds, MicroTime to six fractional digits), since kube re-encodes what it decoded;
// - ConfigMap data values are strings, ConfigMap binaryData and Secret data values base64 strings;
// - Secret stringData is write-only: kube's conversion merges it into data (overriding) and drops it.
// Custom resources are not decoded into Go types: their date-time fields are only validated (schema).
// Which fields of a kind are times, and what its values must be, is the kind's (src/apiserver/kinds/);
// this file is the decoder those rules run in.

import { badRequest } from '../errors.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import type { KubeObject } from '../storage/types.ts';
import { formatMicroTime, formatTime, GoTimeParseError, parseGoTime } from './go-time.ts';

export type TimeKind = 'Time' | 'MicroTime';
/** A path through an object; '*' walks every element of a list or value of a map. */
export type TimeField = [path: string[], kind: TimeKind];

/** The time field at a dotted path ('*' for every element): `t('status.conditions.*.lastTransitionTime')`. */
export const t = (path: string, kind: TimeKind = 'Time'): TimeField => [path.split('.'), kind];

/** metav1.Condition's (and most kinds' condition types') time field. */
export const CONDITION_TIMES: readonly TimeField[] = [t('status.conditions.*.lastTransitionTime')];

/** The times of a pod's container statuses in `list` (containerStatuses, initContainerStatuses, ...). */
export const containerStatusTimes = (list: string): TimeField[] =>
  ['state', 'lastState'].flatMap((state) => [
    t(`status.${list}.*.${state}.running.startedAt`),
    t(`status.${list}.*.${state}.terminated.startedAt`),
    t(`status.${list}.*.${state}.terminated.finishedAt`),
  ]);

/** What kube's decoder enforces on one kind's Go type, beyond ObjectMeta's times. */
export interface KindDecoding {
  /** The kind's metav1.Time / MicroTime fields (k8s.io/api types). */
  times?: readonly TimeField[];
  /** Checks (throwing DecodeError) and converts values as the Go type's decoding does. */
  values?(obj: KubeObject): void;
}

const METADATA_TIMES: TimeField[] = [
  t('metadata.creationTimestamp'),
  t('metadata.deletionTimestamp'),
  t('metadata.managedFields.*.time'),
];

/** encoding/json's name for the JSON type of a value it cannot put into a Go type. */
function jsonTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'object' : typeof value === 'boolean' ? 'bool' : typeof value;
}

/** A value the kind's Go type cannot hold; answered as 400 with kube's decoder message. */
export class DecodeError extends Error {}

/**
 * Times already decoded, by kind and text: the same few strings come back on write after write (a node's
 * conditions keep their transition times, heartbeats of one second are shared by every node that
 * reported in it). Parsing is a pure function of the text, so a hit answers exactly what a parse would.
 */
const decodedTimes = new Map<string, string>();
const DECODED_TIMES_KEPT = 8192;

function normaliseTime(value: unknown, kind: TimeKind): string {
  if (typeof value !== 'string') {
    throw new DecodeError(`json: cannot unmarshal ${jsonTypeName(value)} into Go value of type string`);
  }
  const cacheKey = kind === 'MicroTime' ? `m${value}` : `t${value}`;
  const known = decodedTimes.get(cacheKey);
  if (known !== undefined) return known;
  let normalised: string;
  try {
    const instant = parseGoTime(value, kind === 'MicroTime');
    normalised = kind === 'MicroTime' ? formatMicroTime(instant) : formatTime(instant);
  } catch (err) {
    if (err instanceof GoTimeParseError) throw new DecodeError(err.message);
    throw err;
  }
  if (decodedTimes.size >= DECODED_TIMES_KEPT) decodedTimes.clear();
  decodedTimes.set(cacheKey, normalised);
  return normalised;
}

function walkTimes(holder: unknown, path: string[], kind: TimeKind, at = 0): void {
  if (holder === null || typeof holder !== 'object') return;
  const head = path[at]!;
  const last = at === path.length - 1;
  const container = holder as Record<string, unknown>;
  const keys = head === '*' ? Object.keys(container) : [head];
  for (const key of keys) {
    if (!Object.hasOwn(container, key)) continue;
    const value = container[key];
    if (!last) {
      walkTimes(value, path, kind, at + 1);
    } else if (value === null) {
      // A null time is the zero time: kube omits it on output.
      if (Array.isArray(container)) continue;
      delete container[key];
    } else {
      const normalised = normaliseTime(value, kind);
      if (normalised !== value) container[key] = normalised;
    }
  }
}

/** Go's base64.StdEncoding.DecodeString verdict: the byte offset of the first problem, or -1. */
export function base64ErrorOffset(text: string): number {
  // Go skips \r and \n; offsets count them.
  const chars = [...text].map((c, i) => ({ c, i })).filter(({ c }) => c !== '\r' && c !== '\n');
  const alphabet = /[A-Za-z0-9+/]/;
  let k = 0;
  while (k < chars.length) {
    const quantum = chars.slice(k, k + 4);
    for (let j = 0; j < quantum.length; j++) {
      const { c, i } = quantum[j]!;
      if (alphabet.test(c)) continue;
      if (c !== '=' || j < 2) return i;
      // Padding: "xx==" or "xxx=", and nothing after it.
      if (j === 2 && quantum[3] === undefined) return text.length; // not enough padding
      if (j === 2 && quantum[3]!.c !== '=') return i; // incorrect padding
      const end = k + 4;
      return end < chars.length ? chars[end]!.i : -1;
    }
    if (quantum.length < 4) return quantum[0]!.i;
    k += 4;
  }
  return -1;
}

/** A map of strings (or of base64 strings, for []byte values) at `field`, as encoding/json checks it. */
export function checkStringMap(obj: KubeObject, field: string, structName: string, base64: boolean): void {
  const value = obj[field];
  if (value === undefined || value === null) return;
  const goType = base64 ? 'map[string][]uint8' : 'map[string]string';
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new DecodeError(
      `json: cannot unmarshal ${jsonTypeName(value)} into Go struct field ${structName}.${field} of type ${goType}`,
    );
  }
  for (const entry of Object.values(value as Record<string, unknown>)) {
    if (entry === null) continue;
    if (typeof entry !== 'string') {
      throw new DecodeError(
        `json: cannot unmarshal ${jsonTypeName(entry)} into Go struct field ${structName}.${field} of type ${base64 ? '[]uint8' : 'string'}`,
      );
    }
    if (base64) {
      const offset = base64ErrorOffset(entry);
      if (offset >= 0) throw new DecodeError(`illegal base64 data at input byte ${offset}`);
    }
  }
}

/**
 * Decodes a built-in object as kube's JSON decoder would: throws 400 BadRequest with kube's message on a
 * value the Go type cannot hold; normalises times and merges Secret stringData in place.
 */
export function decodeBuiltinObject(
  def: ResourceDefinition,
  obj: KubeObject,
  decoding: KindDecoding = {},
): void {
  try {
    for (const [path, kind] of METADATA_TIMES) walkTimes(obj, path, kind);
    for (const [path, kind] of decoding.times ?? []) walkTimes(obj, path, kind);
    decoding.values?.(obj);
  } catch (err) {
    if (!(err instanceof DecodeError)) throw err;
    throw badRequest(
      `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${err.message}`,
    );
  }
}
