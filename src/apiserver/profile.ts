// What an application adds to the generic API server. The server knows Kubernetes (built-in kinds,
// CRDs, authentication, RBAC-style rules, the node restriction of kubelets); everything particular to
// the application that runs on it — its CRDs, the validation of its kinds beyond their schemas, the
// extra access its identities get from stored objects, its public routes — comes in through one
// profile, chosen by whoever starts the server (the composition roots: `nodeherd apiserver`,
// `nodeherd up`, the test support). nodeherd's profile is src/profile/nodeherd-profile.ts.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthorizationRules } from './auth/authorizer.ts';
import type { Identity, IdentityNames } from './auth/identities.ts';
import type { NodeAdmissionRules } from './auth/node-restriction.ts';
import type { StatusCause } from './errors.ts';
import type { ResourceRequestInfo } from './http/request-info.ts';
import type { ResourceDefinition } from './registry/resource-definition.ts';
import type { KubeObject } from './storage/types.ts';

/** Reads a stored object; undefined when it, or its kind, does not exist. */
export type StoredObjectLookup = (
  group: string,
  version: string,
  resource: string,
  namespace: string | undefined,
  name: string,
) => KubeObject | undefined;

export interface ApiServerProfile {
  /** CustomResourceDefinitions created (or upgraded) at start unless the server is told not to. */
  customResourceDefinitions(): KubeObject[];
  /**
   * Policy objects (Namespaces, RBAC, ValidatingAdmissionPolicies and bindings) created at start, or
   * brought back to this build's content, as kube-apiserver seeds its bootstrap policy.
   */
  bootstrapPolicy?(): KubeObject[];
  /** Namespaces created at start besides kube's (nodeherd: nodeherd). */
  namespaces?: readonly string[];
  /** The names of the application's controller and node agents; without them the server has none. */
  identities?: IdentityNames;
  /** What the application's own identities (controller, node agents) may do; nothing when absent. */
  authorization?: AuthorizationRules;
  /** What node agents' writes may change, and which Node annotations kubelets may not write. */
  nodeAdmission?: NodeAdmissionRules;
  /**
   * Validation of an object of one of the profile's kinds beyond its schema (field paths, limits,
   * conflicts); [] when it is not one of them. Never called for the status subresource.
   */
  validate?(def: ResourceDefinition, object: KubeObject, old: KubeObject | undefined): StatusCause[];
  /**
   * A last chance for a request the authorizer denied, decided with the stored objects (e.g. a Secret
   * an agent's revisions reference). True allows it.
   */
  allowsDespiteRules?(identity: Identity, request: ResourceRequestInfo, lookup: StoredObjectLookup): boolean;
  /** A public route answered before authentication; returns true when it answered the request. */
  route?(req: IncomingMessage, res: ServerResponse): boolean;
}
