// Whether a node can take a revision at all: a revision whose repositories or packages are for one
// package manager cannot be applied by a node that has another (the node's agent reports its manager in
// nodeherd.io/package-manager). Such a node is not started: it is neither counted nor failed, the
// pool's PackageManagerMismatch condition (and the Event of its change) names it. A node already given
// the revision is judged as usual: its agent refuses the actions, and that failure counts.

import { PACKAGE_MANAGER_ANNOTATION } from '../../api/node-protocol.ts';
import { DEFAULT_PACKAGE_MANAGER, managerOf } from '../../api/packages/registry.ts';
import type { NodeConfigRevision } from '../../api/types.ts';

/** The pool condition naming the nodes a revision was not started on for their package manager. */
export const PACKAGE_MANAGER_MISMATCH_CONDITION = 'PackageManagerMismatch';

/** The managers a revision's repositories and packages need, sorted (none: any node takes it). */
export function revisionManagers(revision: NodeConfigRevision): string[] {
  const { repositories, packages } = revision.spec.config;
  return [...new Set([...repositories, ...packages].map(managerOf))].sort();
}

/** The manager a Node reports; absent: apt, the only manager of agents that did not report one. */
export function nodeManagerOf(annotations: Record<string, string> | undefined): string {
  return annotations?.[PACKAGE_MANAGER_ANNOTATION] || DEFAULT_PACKAGE_MANAGER;
}

/** Why a node with `nodeManager` cannot take a revision needing `needed`, or undefined if it can. */
export function packageManagerRefusal(needed: readonly string[], nodeManager: string): string | undefined {
  const others = needed.filter((m) => m !== nodeManager);
  if (others.length === 0) return undefined;
  return (
    `the revision's repositories and packages are for ${others.join(' and ')}; this node's package ` +
    `manager is ${nodeManager} (${PACKAGE_MANAGER_ANNOTATION})`
  );
}
