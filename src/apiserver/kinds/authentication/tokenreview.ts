// TokenReview (authentication.k8s.io/v1): who holds a token, asked by a component that delegates its
// authentication to the API server (system:auth-delegator), as controller-runtime's metrics filters do.
// Answered by auth/self-reviews.ts, never stored.

import type { BuiltinKind } from '../builtin-kind.ts';
import { review } from '../shared/review.ts';

export const tokenReviewKind: BuiltinKind = {
  definitions: () => [
    review(
      'authentication.k8s.io',
      'v1',
      'tokenreviews',
      'TokenReview',
      'TokenReview attempts to authenticate a token to a known user.',
    ),
  ],
};
