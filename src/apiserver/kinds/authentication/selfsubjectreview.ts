// SelfSubjectReview (authentication.k8s.io): who the requester is (`kubectl auth whoami`), in v1 and
// v1beta1 (kubectl 1.27 asks v1beta1 first). Answered by auth/self-reviews.ts, never stored.

import { SelfSubjectReview } from '../../protobuf/groups.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { review } from '../shared/review.ts';

const DESCRIPTION =
  'SelfSubjectReview contains the user information that the kube-apiserver has about the user making this request.';

export const selfSubjectReviewKind: BuiltinKind = {
  definitions: () => [
    review('authentication.k8s.io', 'v1', 'selfsubjectreviews', 'SelfSubjectReview', DESCRIPTION),
    review('authentication.k8s.io', 'v1beta1', 'selfsubjectreviews', 'SelfSubjectReview', DESCRIPTION),
  ],
  protobuf: {
    'authentication.k8s.io/v1/SelfSubjectReview': SelfSubjectReview,
    'authentication.k8s.io/v1beta1/SelfSubjectReview': SelfSubjectReview,
  },
};
