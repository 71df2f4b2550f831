// What an admission stage does with its rules' decision on one write: nothing when allowed, else the 403
// that names the object and gives the rules' reason.

import type { Decision } from '../auth/authorizer.ts';
import { admissionDenied } from '../auth/denials.ts';
import type { AdmissionRequest } from '../objects/types.ts';

/** Throws the admission denial for `write` unless `decision` allows it. */
export function refuseUnlessAllowed(write: AdmissionRequest, decision: Decision): void {
  if (decision.allowed) return;
  const name = (write.object ?? write.oldObject)?.metadata?.name;
  throw admissionDenied({ group: write.def.group, resource: write.def.resource, name }, decision.reason);
}
