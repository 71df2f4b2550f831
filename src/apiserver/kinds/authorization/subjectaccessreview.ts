// SubjectAccessReview (authorization.k8s.io/v1): what a given user may do, asked by a component that
// delegates its authorization to the API server (the controller's /metrics). Answered by
// auth/self-reviews.ts, never stored.

import type { BuiltinKind } from '../builtin-kind.ts';
import { review } from '../shared/review.ts';

export const subjectAccessReviewKind: BuiltinKind = {
  definitions: () => [
    review(
      'authorization.k8s.io',
      'v1',
      'subjectaccessreviews',
      'SubjectAccessReview',
      'SubjectAccessReview checks whether or not a user or group can perform an action.',
    ),
  ],
};
