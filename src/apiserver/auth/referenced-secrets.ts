// Like kube's Node authorizer for Secrets mounted by a node's pods: an agent may read a Secret only
// while a revision its Node is told to apply (desired) or has applied (current, needed to restore it
// locally) references that Secret from a file's content.secretRef.

import { CURRENT_REVISION_ANNOTATION, DESIRED_REVISION_ANNOTATION } from '../../api/node-protocol.ts';
import type { KubeObject } from '../storage/types.ts';

/** Names of the revisions whose Secrets the agent on this Node may read. */
export function revisionsOfNode(node: KubeObject | undefined): string[] {
  const annotations = node?.metadata?.annotations ?? {};
  return [annotations[DESIRED_REVISION_ANNOTATION], annotations[CURRENT_REVISION_ANNOTATION]].filter(
    (name): name is string => typeof name === 'string' && name !== '',
  );
}

/** Whether any of these NodeConfigRevisions reads namespace/name through a file's secretRef. */
export function revisionsReferenceSecret(
  revisions: (KubeObject | undefined)[],
  namespace: string,
  name: string,
): boolean {
  return revisions.some((revision) =>
    (revision?.spec?.config?.files ?? []).some((file: KubeObject) => {
      const ref = file?.content?.secretRef;
      return ref?.namespace === namespace && ref?.name === name;
    }),
  );
}
