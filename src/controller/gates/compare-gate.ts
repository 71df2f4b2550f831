// A comparison gate (no anchor has one): the updated nodes judged against the nodes not yet updated,
// with the same PromQL over each set. The query names a per-node instant vector with `$NODES` where
// the node matcher goes; it is asked twice (as a POST form: hundreds of node names make a long
// matcher), once with `<nodeLabel>=~"<updated nodes>"` and once with the not-yet-updated nodes. Each
// side's value is the mean over its nodes (a node with several series counts once, by its mean; NaN
// samples count as no value), and each side needs `minNodes` nodes with a value before the gate
// judges. Fewer (the first batch has no updated node at all): "not judged", which neither fails nor
// holds, or the gate would hold the very batch that gives it its sample. Judged: it fails when the
// updated side is worse (higher, or lower with worseWhen Lower) than the rest by more than the margin
// (a percentage of the rest's mean, or absolute).

import { COMPARE_NODES_PLACEHOLDER, type compareGateSchema } from '../../api/node-config-pool-schema.ts';
import type { OutputOf } from '../../api/schema-builder.ts';
import type { GateCheck } from './gate-check.ts';
import { type PrometheusGateKind, prometheusUnavailable } from './gate-kind.ts';
import type { QueryResult } from './prometheus-client.ts';

export type CompareGateSpec = OutputOf<typeof compareGateSchema>;

/** The two node sets a comparison is made over. */
export interface CompareNodeSets {
  /** Nodes on the revision being rolled out. */
  updated: readonly string[];
  /** Nodes neither on it nor on their way to it. */
  rest: readonly string[];
}

/** RE2 metacharacters escaped, then the result quoted as a PromQL string. */
function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The query with `$NODES` replaced by a matcher of exactly these nodes. */
export function queryFor(spec: CompareGateSpec, nodes: readonly string[]): string {
  const alternatives = [...nodes].sort().map(escapeRegex).join('|');
  const matcher = `${spec.nodeLabel}=~${JSON.stringify(alternatives)}`;
  return spec.query.split(COMPARE_NODES_PLACEHOLDER).join(matcher);
}

export interface Side {
  /** Nodes with a value. */
  nodes: number;
  mean: number;
}

/** The mean per node of the result's series that belong to these nodes. */
export function sideOf(
  spec: CompareGateSpec,
  result: QueryResult,
  nodes: readonly string[],
): Side | { error: string } {
  if (result.type !== 'vector')
    return {
      error: `the query returns a ${result.type}, not an instant vector with a ${spec.nodeLabel} label`,
    };
  const wanted = new Set(nodes);
  const perNode = new Map<string, number[]>();
  for (const sample of result.samples) {
    const node = sample.labels[spec.nodeLabel];
    if (node === undefined || !wanted.has(node) || Number.isNaN(sample.value)) continue;
    const values = perNode.get(node) ?? [];
    values.push(sample.value);
    perNode.set(node, values);
  }
  let sum = 0;
  for (const values of perNode.values()) sum += values.reduce((a, b) => a + b, 0) / values.length;
  return { nodes: perNode.size, mean: perNode.size === 0 ? Number.NaN : sum / perNode.size };
}

function round(value: number): string {
  return Number.isFinite(value) ? String(Number(value.toPrecision(4))) : String(value);
}

/** How much worse the updated side is than the rest (negative: better), in the margin's unit. */
function worseBy(spec: CompareGateSpec, updated: number, rest: number): number {
  const diff = spec.worseWhen === 'Higher' ? updated - rest : rest - updated;
  if (spec.marginUnit === 'Absolute') return diff;
  if (rest === 0) return diff === 0 ? 0 : diff > 0 ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  return (diff / Math.abs(rest)) * 100;
}

export function judgeComparison(spec: CompareGateSpec, updated: Side, rest: Side): GateCheck {
  const what = `compare gate ${spec.name}`;
  const sides = `updated ${round(updated.mean)} over ${updated.nodes} nodes, others ${round(rest.mean)} over ${rest.nodes}`;
  if (updated.nodes < spec.minNodes || rest.nodes < spec.minNodes)
    return {
      state: 'pass',
      message: `${spec.name}: not judged: ${updated.nodes} updated and ${rest.nodes} other nodes have a value, ${spec.minNodes} each are needed`,
    };
  const by = worseBy(spec, updated.mean, rest.mean);
  const unit = spec.marginUnit === 'Percent' ? '%' : '';
  if (!Number.isFinite(updated.mean) || !Number.isFinite(rest.mean) || by > spec.margin)
    return {
      state: 'fail',
      reason: 'MetricGateFailed',
      message: `${what}: ${sides}: the updated nodes are worse by ${round(by)}${unit}, more than the margin ${spec.margin}${unit} (${spec.worseWhen.toLowerCase()} is worse)`,
    };
  return { state: 'pass', message: `${spec.name}: ${sides}, within ${spec.margin}${unit}` };
}

/** One comparison, asked of Prometheus. */
export async function checkComparison(
  spec: CompareGateSpec,
  sets: CompareNodeSets,
  prometheus: { query(expression: string, options: { post?: boolean }): Promise<QueryResult> },
): Promise<GateCheck> {
  const ask = async (nodes: readonly string[]): Promise<Side | { error: string }> =>
    nodes.length === 0
      ? { nodes: 0, mean: Number.NaN }
      : sideOf(spec, await prometheus.query(queryFor(spec, nodes), { post: true }), nodes);
  try {
    const [updated, rest] = await Promise.all([ask(sets.updated), ask(sets.rest)]);
    const error = 'error' in updated ? updated.error : 'error' in rest ? rest.error : undefined;
    if (error !== undefined || 'error' in updated || 'error' in rest)
      return { state: 'unavailable', message: `compare gate ${spec.name}: ${error}` };
    return judgeComparison(spec, updated, rest);
  } catch (err) {
    return prometheusUnavailable(`compare gate ${spec.name}`, err);
  }
}

export const compareGates: PrometheusGateKind<readonly CompareGateSpec[]> = {
  asks: 'prometheus',
  spec: (gate) => ((gate.compare?.length ?? 0) > 0 ? gate.compare : undefined),
  check: (gates, { prometheus, nodes }) =>
    Promise.all(gates.map((g) => checkComparison(g, nodes ?? { updated: [], rest: [] }, prometheus))),
};
