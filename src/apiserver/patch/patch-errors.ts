// The Status errors a real API server answers when a patch cannot be applied. The shapes follow
// apiserver's pkg/endpoints/handlers/patch.go and the errors it lets through unconverted.

import { ApiError } from '../errors.ts';

/**
 * 422 for a patch that parsed but does not apply (a failed JSON patch `test`, a missing path, a list
 * of lists). The real server replaces the reason with this generic sentence
 * (NewGenericServerResponse); we keep the reason as a cause so the client can still see it.
 */
export function patchNotApplicable(detail: string): ApiError {
  return new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', {
    causes: [{ message: detail }],
  });
}

/**
 * Strategic merge patch failures the real server does not translate into a Status (a missing merge
 * key, an unknown $patch directive, a $setElementOrder list that contradicts the patch) reach the
 * client as a 500 carrying the bare message. The real Status has an empty reason; InternalError is
 * the nearest reason we can express.
 */
export function unconvertedPatchError(message: string): ApiError {
  return new ApiError(500, 'InternalError', message);
}

/** 415 listing what the endpoint accepts (negotiation.NewUnsupportedMediaTypeError). */
export function unsupportedPatchMediaType(accepted: readonly string[]): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}
