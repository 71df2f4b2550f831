// Like kube's Node authorizer for Secrets mounted by a node's pods: an agent may read a Secret only
// while a revision assigned to its Node references that Secret from a file's content.secretRef, and
// only in SECRETS_NAMESPACE.
// Assigned means decided by the controller or an administrator, never by the agent itself:
// - desired-revision: written by the controller (an agent may only copy available-revision into it,
//   node-restriction.ts);
// - available-revision: the controller's OTA announcement;
// - current-revision, written by the agent (needed to restore the last applied revision locally):
//   only while that revision's pool selects the Node by its labels, which the agent cannot change.

import { SECRETS_NAMESPACE } from '../api/group.ts';
import { matchesLabelSelector } from '../api/label-selector.ts';
import {
  AVAILABLE_REVISION_ANNOTATION,
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  POOL_LABEL,
} from '../api/node-protocol.ts';
import type { KubeObject } from '../apiserver/storage/types.ts';

export interface RevisionLookup {
  revision(name: string): KubeObject | undefined;
  pool(name: string): KubeObject | undefined;
}

const named = (name: unknown): name is string => typeof name === 'string' && name !== '';

/** The NodeConfigRevisions whose Secrets the agent on this Node may read. */
export function revisionsOfNode(node: KubeObject | undefined, lookup: RevisionLookup): KubeObject[] {
  const annotations = node?.metadata?.annotations ?? {};
  const revisions: KubeObject[] = [];
  for (const name of [annotations[DESIRED_REVISION_ANNOTATION], annotations[AVAILABLE_REVISION_ANNOTATION]]) {
    const revision = named(name) ? lookup.revision(name) : undefined;
    if (revision) revisions.push(revision);
  }
  const current = annotations[CURRENT_REVISION_ANNOTATION];
  const revision = named(current) ? lookup.revision(current) : undefined;
  const poolName = revision?.spec?.pool ?? revision?.metadata?.labels?.[POOL_LABEL];
  const pool = named(poolName) ? lookup.pool(poolName) : undefined;
  const selector = pool?.spec?.nodeSelector;
  if (revision && selector && matchesLabelSelector(selector, node?.metadata?.labels ?? {})) {
    revisions.push(revision);
  }
  return revisions;
}

/** Whether any of these NodeConfigRevisions reads namespace/name through a file's secretRef. */
export function revisionsReferenceSecret(
  revisions: (KubeObject | undefined)[],
  namespace: string,
  name: string,
): boolean {
  // Only nodeherd's Secrets namespace, whatever a revision stored before that rule says (issue 31).
  if (namespace !== SECRETS_NAMESPACE) return false;
  return revisions.some((revision) =>
    (revision?.spec?.config?.files ?? []).some((file: KubeObject) => {
      const ref = file?.content?.secretRef;
      return ref?.namespace === namespace && ref?.name === name;
    }),
  );
}
