// The conditions GitOps tools wait on, as kstatus (sigs.k8s.io/cli-utils) reads a custom resource:
// Ready (normal-true: the pool runs what its spec asks), Reconciling and Stalled (abnormal-true: the
// controller is still working on it; it stopped and will not go on without someone). Argo CD's health
// check (examples/gitops/argocd) and Flux's health checks read these three and observedGeneration, not
// nodeherd's own conditions (Progressing, Complete, Paused, ...), from which they are derived here.

import type { StatusCondition } from '../../kube/conditions.ts';

type Cond = Omit<StatusCondition, 'lastTransitionTime' | 'observedGeneration'>;

export const KSTATUS_CONDITION_TYPES = ['Ready', 'Reconciling', 'Stalled'] as const;

/** Why the rollout cannot go on by itself, from nodeherd's conditions; undefined when it can. */
function stall(by: ReadonlyMap<string, Cond>): { reason: string; message: string } | undefined {
  const paused = by.get('Paused');
  if (paused?.status === 'True' && paused.reason === 'FailurePolicy')
    return { reason: 'FailurePolicy', message: `paused by the failure policy: ${paused.message}` };
  const rolledBack = by.get('RolledBack');
  if (rolledBack?.status === 'True')
    return { reason: 'RolledBack', message: `pinned by a rollback: ${rolledBack.message}` };
  const render = by.get('RenderDegraded');
  if (render?.status === 'True') return { reason: render.reason, message: render.message };
  const progressing = by.get('Progressing');
  if (progressing?.reason === 'Stalled') return { reason: 'Stalled', message: progressing.message };
  // A pool selecting no node: a typo in a nodeSelector does not fix itself (nodes joining later end it).
  const complete = by.get('Complete');
  if (complete?.status === 'False' && complete.reason === 'NoNodes')
    return { reason: 'NoNodes', message: complete.message };
  return undefined;
}

/**
 * Ready, Reconciling and Stalled from the pool's other conditions: Stalled when only a person can move
 * the rollout on (the failure policy paused it, a rollback pinned it, its configs do not render, failed
 * nodes hold its budget, its nodeSelector selects no node); otherwise Reconciling until every node runs the target; Ready when Complete.
 */
export function kstatusConditions(conditions: readonly Cond[]): Cond[] {
  const by = new Map(conditions.map((c) => [c.type, c]));
  const stalled = stall(by);
  const complete = by.get('Complete');
  const progressing = by.get('Progressing');
  const paused = by.get('Paused');
  if (stalled)
    return [
      { type: 'Ready', status: 'False', reason: stalled.reason, message: stalled.message },
      { type: 'Reconciling', status: 'False', reason: 'Stalled', message: '' },
      { type: 'Stalled', status: 'True', ...stalled },
    ];
  if (complete?.status === 'True')
    return [
      { type: 'Ready', status: 'True', reason: complete.reason, message: complete.message },
      { type: 'Reconciling', status: 'False', reason: complete.reason, message: '' },
      { type: 'Stalled', status: 'False', reason: 'NotStalled', message: '' },
    ];
  // In progress, or waiting for something that comes by itself or by the user's hand (a window, a
  // canary's soak, a resume): still reconciling, as kstatus calls a paused Deployment's rollout.
  const waiting =
    paused?.status === 'True'
      ? { reason: 'Paused', message: paused.message }
      : {
          reason: progressing?.reason || complete?.reason || 'Progressing',
          message: progressing?.message || complete?.message || '',
        };
  return [
    { type: 'Ready', status: 'False', ...waiting },
    { type: 'Reconciling', status: 'True', ...waiting },
    { type: 'Stalled', status: 'False', reason: 'NotStalled', message: '' },
  ];
}
