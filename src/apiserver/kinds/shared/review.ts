// The self reviews (SelfSubjectReview, SelfSubjectAccessReview, SelfSubjectRulesReview) are create-only
// resources answered at once for the requester and never stored (auth/self-reviews.ts); their
// definitions differ only in names and description.

import type { ResourceDefinition } from '../../registry/resource-definition.ts';
import { builtin, kindSchema, open } from './schemas.ts';

/** A review resource: create-only, answered at once and never stored (auth/self-reviews.ts). */
export function review(
  group: string,
  version: string,
  resource: string,
  kind: string,
  description: string,
): ResourceDefinition {
  return builtin({
    group,
    version,
    resource,
    singular: resource.replace(/s$/, ''),
    kind,
    listKind: `${kind}List`,
    namespaced: false,
    verbs: ['create'],
    schema: kindSchema(description, {
      spec: open('Spec holds information about the request being evaluated.'),
      status: open('Status is filled in by the server.'),
    }),
    printerColumns: [],
  });
}
