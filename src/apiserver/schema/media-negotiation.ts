// Accept-header negotiation for object responses (apiserver endpoints/handlers/negotiation): picks
// the first acceptable clause by q-value and specificity, honouring kube's parameters `as`, `g`, `v`
// (Table, PartialObjectMetadata, PartialObjectMetadataList in meta.k8s.io v1 or v1beta1), `stream`
// and `pretty`. Clauses asking for something the server cannot produce (protobuf, other kinds) are
// skipped; when none is left the answer is 406 NotAcceptable, worded as kube words it.

import { ApiError } from '../errors.ts';
import type { MetaGroupVersion } from './partial-object-metadata.ts';

export type OutputTarget = 'Object' | 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

export interface OutputChoice {
  /** The serialization, e.g. `application/json`: the response's Content-Type. */
  mediaType: string;
  target: OutputTarget;
  /** For Table and PartialObjectMetadata(List): the meta.k8s.io version to answer in. */
  apiVersion?: MetaGroupVersion;
  /** `watch` when the client asked for the streaming variant explicitly. */
  stream?: string;
  pretty: boolean;
}

export type NegotiatedOutput = { ok: true; choice: OutputChoice } | { ok: false; error: ApiError };

export interface NegotiationOptions {
  /** What the server serializes, preferred first. Default: application/json only. */
  mediaTypes?: readonly string[];
  /** Media types with a watch framing; default application/json. */
  streamMediaTypes?: readonly string[];
  /** Negotiating a watch: only streamable media types qualify. */
  watch?: boolean;
  /** Whether this endpoint can answer with a Table (default true). */
  tables?: boolean;
}

interface Clause {
  type: string;
  subtype: string;
  q: number;
  params: Map<string, string>;
}

/** goautoneg.ParseAccept: clauses by q-value, concrete before wildcard, otherwise in header order. */
function parseAccept(header: string): Clause[] {
  const clauses: Clause[] = [];
  for (const part of header.split(',')) {
    const [range = '', ...rawParams] = part.split(';').map((p) => p.trim());
    if (range === '') continue;
    const slash = range.indexOf('/');
    const type = slash < 0 ? range : range.slice(0, slash);
    const subtype = slash < 0 ? '*' : range.slice(slash + 1);
    const params = new Map<string, string>();
    let q = 1;
    for (const raw of rawParams) {
      const eq = raw.indexOf('=');
      const key = (eq < 0 ? raw : raw.slice(0, eq)).trim();
      const value = (eq < 0 ? '' : raw.slice(eq + 1)).trim().replace(/^"(.*)"$/, '$1');
      if (key === 'q') q = Number.parseFloat(value);
      else if (key !== '') params.set(key, value);
    }
    if (Number.isNaN(q) || q <= 0) continue;
    clauses.push({ type: type.toLowerCase(), subtype: subtype.toLowerCase(), q, params });
  }
  const rank = (c: Clause) => (c.type === '*' ? 2 : c.subtype === '*' ? 1 : 0);
  return clauses
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.q - a.c.q || rank(a.c) - rank(b.c) || a.i - b.i)
    .map(({ c }) => c);
}

const metaVersions: Record<string, MetaGroupVersion> = {
  v1: 'meta.k8s.io/v1',
  v1beta1: 'meta.k8s.io/v1beta1',
};

function accept(clause: Clause, mediaType: string, options: NegotiationOptions): OutputChoice | undefined {
  const streamable = (options.streamMediaTypes ?? ['application/json']).includes(mediaType);
  const stream = clause.params.get('stream') ?? '';
  if (stream !== '' && (stream !== 'watch' || !streamable)) return undefined;
  if (options.watch && !streamable) return undefined;
  const serverVersion = clause.params.get('sv') ?? '';
  if (serverVersion !== '' && serverVersion !== 'v1') return undefined;
  const choice: OutputChoice = { mediaType, target: 'Object', pretty: clause.params.get('pretty') === '1' };
  if (stream !== '') choice.stream = stream;

  const as = clause.params.get('as');
  const group = clause.params.get('g');
  const version = clause.params.get('v');
  if (as === undefined && group === undefined && version === undefined) return choice;
  const apiVersion = group === 'meta.k8s.io' ? metaVersions[version ?? ''] : undefined;
  if (!apiVersion) return undefined;
  if (as === 'Table') {
    const textual = mediaType === 'application/json' || mediaType === 'application/yaml';
    if (options.tables === false || !textual) return undefined;
  } else if (as !== 'PartialObjectMetadata' && as !== 'PartialObjectMetadataList') {
    return undefined;
  }
  return { ...choice, target: as, apiVersion };
}

/** Decides how to answer a request from its Accept header (undefined or empty means JSON). */
export function negotiateOutput(
  header: string | undefined,
  options: NegotiationOptions = {},
): NegotiatedOutput {
  const mediaTypes = options.mediaTypes ?? ['application/json'];
  const eligible = options.watch
    ? mediaTypes.filter((m) => (options.streamMediaTypes ?? ['application/json']).includes(m))
    : mediaTypes;
  if ((header === undefined || header.trim() === '') && eligible.length > 0) {
    return { ok: true, choice: { mediaType: eligible[0]!, target: 'Object', pretty: false } };
  }
  for (const clause of parseAccept(header ?? '')) {
    for (const mediaType of mediaTypes) {
      const [type, subtype] = mediaType.split('/');
      const matches =
        (clause.type === type && (clause.subtype === subtype || clause.subtype === '*')) ||
        (clause.type === '*' && clause.subtype === '*');
      if (!matches) continue;
      const choice = accept(clause, mediaType, options);
      if (choice) return { ok: true, choice };
    }
  }
  const listed = options.watch ? eligible.map((m) => `${m};stream=watch`) : mediaTypes;
  return {
    ok: false,
    error: new ApiError(
      406,
      'NotAcceptable',
      `only the following media types are accepted: ${listed.join(', ')}`,
    ),
  };
}

/** 406 when the requested transformation does not fit the result (a list asked as one object, or the reverse). */
export function targetMismatch(target: OutputTarget, isList: boolean): ApiError | undefined {
  if (target === 'PartialObjectMetadata' && isList) {
    return new ApiError(
      406,
      'NotAcceptable',
      'you requested PartialObjectMetadata, but the requested object is a list',
    );
  }
  if (target === 'PartialObjectMetadataList' && !isList) {
    return new ApiError(
      406,
      'NotAcceptable',
      'you requested PartialObjectMetadataList, but the requested object is not a list',
    );
  }
  return undefined;
}
