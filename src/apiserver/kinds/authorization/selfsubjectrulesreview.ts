// SelfSubjectRulesReview (authorization.k8s.io/v1): what the requester may do in a namespace (`kubectl
// auth can-i --list`). Answered by auth/self-reviews.ts, never stored.

import { SelfSubjectRulesReview } from '../../protobuf/groups.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { review } from '../shared/review.ts';

export const selfSubjectRulesReviewKind: BuiltinKind = {
  definitions: () => [
    review(
      'authorization.k8s.io',
      'v1',
      'selfsubjectrulesreviews',
      'SelfSubjectRulesReview',
      'SelfSubjectRulesReview enumerates the set of actions the current user can perform within a namespace.',
    ),
  ],
  protobuf: { 'authorization.k8s.io/v1/SelfSubjectRulesReview': SelfSubjectRulesReview },
};
