// ValidatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1): puts a ValidatingAdmissionPolicy
// in force, for the resources it matches and with the actions it names (chain/admission-policies.ts).

import type { StatusCause } from '../../errors.ts';
import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { age } from '../shared/printing.ts';
import { builtin, kindSchema, open } from '../shared/schemas.ts';
import { ADMISSION_GROUP } from './validatingadmissionpolicy.ts';

const ACTIONS = ['Deny', 'Warn', 'Audit'];

export const validatingAdmissionPolicyBindingKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: ADMISSION_GROUP,
      version: 'v1',
      resource: 'validatingadmissionpolicybindings',
      kind: 'ValidatingAdmissionPolicyBinding',
      namespaced: false,
      categories: ['api-extensions'],
      schema: kindSchema(
        'ValidatingAdmissionPolicyBinding binds the ValidatingAdmissionPolicy with paramerized resources.',
        { spec: open('Specification of the desired behavior of ValidatingAdmissionPolicyBinding.') },
      ),
      printerColumns: [age],
      patchMeta: builtinPatchMeta('ValidatingAdmissionPolicyBinding'),
      tracksGeneration: true,
    }),
  ],
  strategies: () => [
    {
      validate(obj) {
        const causes: StatusCause[] = [];
        const spec = obj.spec ?? {};
        if (typeof spec.policyName !== 'string' || spec.policyName === '') {
          causes.push({ type: 'FieldValueRequired', field: 'spec.policyName', message: 'Required value' });
        }
        const actions = spec.validationActions;
        if (!Array.isArray(actions) || actions.length === 0) {
          causes.push({
            type: 'FieldValueRequired',
            field: 'spec.validationActions',
            message: 'Required value',
          });
        } else {
          actions.forEach((action: unknown, i: number) => {
            if (typeof action !== 'string' || !ACTIONS.includes(action)) {
              causes.push({
                type: 'FieldValueNotSupported',
                field: `spec.validationActions[${i}]`,
                message: `Unsupported value: ${JSON.stringify(action)}: supported values: "Audit", "Deny", "Warn"`,
              });
            }
          });
        }
        return causes;
      },
    },
  ],
};
