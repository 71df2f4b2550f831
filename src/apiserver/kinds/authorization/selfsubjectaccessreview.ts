// SelfSubjectAccessReview (authorization.k8s.io/v1): may the requester do one thing (`kubectl auth
// can-i`). Answered by auth/self-reviews.ts, never stored.

import { SelfSubjectAccessReview } from '../../protobuf/groups.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { review } from '../shared/review.ts';

export const selfSubjectAccessReviewKind: BuiltinKind = {
  definitions: () => [
    review(
      'authorization.k8s.io',
      'v1',
      'selfsubjectaccessreviews',
      'SelfSubjectAccessReview',
      'SelfSubjectAccessReview checks whether or the current user can perform an action.',
    ),
  ],
  protobuf: { 'authorization.k8s.io/v1/SelfSubjectAccessReview': SelfSubjectAccessReview },
};
