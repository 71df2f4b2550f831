// An admission stage adds a check to the request; the object service runs every check on each write the
// request makes (inside the write, with the stored and the resulting object), dry runs included.

import type { Admit } from '../objects/object-service.ts';
import type { ApiRequest, RequestStage } from './request-chain.ts';

/** A stage that adds the check `checkFor` gives a request (none: the request's writes are not its concern). */
export function admissionStage(
  name: string,
  checkFor: (request: ApiRequest) => Admit | undefined,
): RequestStage {
  return {
    name,
    async handle(request, next) {
      const check = checkFor(request);
      if (check) request.admission.push(check);
      return next();
    },
  };
}
