// Why an eviction was refused, as the API server says it: a 429 whose causes carry the
// PodDisruptionBudget (`{reason: "DisruptionBudget", message: "The disruption budget web needs 2
// healthy pods and has 2 currently"}`, from the embedded server and a real one alike), or any other
// error. The drain's blocked reason groups the refused pods by budget, so the pool's status, the
// node's DrainBlocked Event, notifications and the dashboard name the budget and every pod it holds.

import { isKubeError } from '../../kube/kube-error.ts';

export interface Refusal {
  /** namespace/name of the pod. */
  pod: string;
  /** namespace/name of the PodDisruptionBudget that refused, when the answer names one. */
  budget?: string;
  /** The budget's cause message, or the error's. */
  message: string;
}

const BUDGET_NAME = /disruption budget (\S+)/i;

export function refusalOf(namespace: string, pod: string, err: unknown): Refusal {
  const at = `${namespace}/${pod}`;
  if (isKubeError(err, 429) && typeof err.body === 'object') {
    const cause = (err.body.details?.causes ?? []).find((c) => c.reason === 'DisruptionBudget');
    const name = cause?.message ? BUDGET_NAME.exec(cause.message)?.[1] : undefined;
    if (cause?.message && name) return { pod: at, budget: `${namespace}/${name}`, message: cause.message };
  }
  const message = err instanceof Error ? err.message.replace(/^\S+ \S+: /, '') : String(err);
  return { pod: at, message };
}

const MAX_PODS_SHOWN = 5;

function podList(pods: readonly string[]): string {
  const shown = pods.slice(0, MAX_PODS_SHOWN).join(', ');
  return pods.length > MAX_PODS_SHOWN ? `${shown} and ${pods.length - MAX_PODS_SHOWN} more` : shown;
}

/**
 * One line for the refusals of a drain pass, e.g. `evicting default/web-1, default/web-2:
 * PodDisruptionBudget default/web: The disruption budget web needs 2 healthy pods and has 2
 * currently`; several budgets (or other errors) are joined with `; `.
 */
export function describeRefusals(refusals: readonly Refusal[]): string | undefined {
  if (refusals.length === 0) return undefined;
  const groups = new Map<string, { pods: string[]; text: string }>();
  for (const r of refusals) {
    const key = r.budget ?? `error:${r.message}`;
    const text = r.budget ? `PodDisruptionBudget ${r.budget}: ${r.message}` : r.message;
    const group = groups.get(key) ?? { pods: [], text };
    group.pods.push(r.pod);
    groups.set(key, group);
  }
  return [...groups.values()].map((g) => `evicting ${podList(g.pods)}: ${g.text}`).join('; ');
}

/** The budgets named in a drain's blocked reason. */
export function budgetsIn(reason: string | undefined): string[] {
  return [...(reason ?? '').matchAll(/PodDisruptionBudget (\S+?):/g)].map((m) => m[1]!);
}
