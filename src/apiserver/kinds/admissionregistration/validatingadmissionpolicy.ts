// ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1): CEL checks of writes, enforced through
// its bindings by the admission policies stage (chain/admission-policies.ts, evaluated by
// cel/admission-policy.ts). An expression that does not compile is refused when the policy is written.

import { policyCompileErrors } from '../../cel/admission-policy.ts';
import type { StatusCause } from '../../errors.ts';
import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { age } from '../shared/printing.ts';
import { builtin, withStatus } from '../shared/schemas.ts';

export const ADMISSION_GROUP = 'admissionregistration.k8s.io';

const FAILURE_POLICIES = ['Fail', 'Ignore'];

export const validatingAdmissionPolicyKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: ADMISSION_GROUP,
      version: 'v1',
      resource: 'validatingadmissionpolicies',
      kind: 'ValidatingAdmissionPolicy',
      namespaced: false,
      categories: ['api-extensions'],
      ...withStatus(
        'ValidatingAdmissionPolicy describes the definition of an admission validation policy that accepts or rejects an object without changing it.',
        'ValidatingAdmissionPolicy',
      ),
      printerColumns: [age],
      patchMeta: builtinPatchMeta('ValidatingAdmissionPolicy'),
      tracksGeneration: true,
    }),
  ],
  strategies: () => [
    {
      validate(obj) {
        const causes: StatusCause[] = [];
        const spec = obj.spec;
        if (!spec || typeof spec !== 'object') {
          return [{ type: 'FieldValueRequired', field: 'spec', message: 'Required value' }];
        }
        if (spec.failurePolicy !== undefined && !FAILURE_POLICIES.includes(spec.failurePolicy)) {
          causes.push({
            type: 'FieldValueNotSupported',
            field: 'spec.failurePolicy',
            message: `Unsupported value: ${JSON.stringify(spec.failurePolicy)}: supported values: "Fail", "Ignore"`,
          });
        }
        for (const { field, error } of policyCompileErrors(obj)) {
          causes.push({
            type: error === 'Required value' ? 'FieldValueRequired' : 'FieldValueInvalid',
            field,
            message: error === 'Required value' ? error : `Invalid value: ${error}`,
          });
        }
        return causes;
      },
    },
  ],
};
