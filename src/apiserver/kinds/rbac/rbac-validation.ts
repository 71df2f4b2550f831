// What kube's RBAC validation (pkg/apis/rbac/validation) requires of Roles, ClusterRoles and their
// bindings, shared by the four kinds of rbac.authorization.k8s.io/v1: every rule names verbs, and
// resources (with apiGroups) or, in a ClusterRole, nonResourceURLs; a binding's roleRef names a Role or
// ClusterRole in this group and never changes; subjects are Users, Groups or ServiceAccounts.

import type { StatusCause } from '../../errors.ts';
import type { JSONSchemaProps, PrinterColumn } from '../../registry/resource-definition.ts';
import type { KubeObject } from '../../storage/types.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** kubectl's one column for the four kinds (besides the name). */
export const createdAt: PrinterColumn = {
  name: 'Created At',
  type: 'string',
  format: 'date-time',
  jsonPath: '.metadata.creationTimestamp',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
};

const openObject = (description: string): JSONSchemaProps => ({
  type: 'object',
  description,
  'x-kubernetes-preserve-unknown-fields': true,
});

export const rulesSchema = (kind: string): JSONSchemaProps => ({
  type: 'array',
  description: `Rules holds all the PolicyRules for this ${kind}`,
  items: openObject('PolicyRule holds information that describes a policy rule.'),
});

export const bindingSchema = (kind: string): Record<string, JSONSchemaProps> => ({
  subjects: {
    type: 'array',
    description: 'Subjects holds references to the objects the role applies to.',
    items: openObject(
      'Subject contains a reference to the object or user identities a role binding applies to.',
    ),
  },
  roleRef: openObject(
    `RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace (${kind}).`,
  ),
});

const required = (field: string): StatusCause => ({
  type: 'FieldValueRequired',
  message: 'Required value',
  field,
});
const unsupported = (field: string, value: unknown, allowed: readonly string[]): StatusCause => ({
  type: 'FieldValueNotSupported',
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${allowed.map((v) => `"${v}"`).join(', ')}`,
  field,
});
const invalidValue = (field: string, value: unknown, why: string): StatusCause => ({
  type: 'FieldValueInvalid',
  message: `Invalid value: ${JSON.stringify(value)}: ${why}`,
  field,
});

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

/** The causes of a Role's or ClusterRole's `rules`; nonResourceURLs only where `clusterScoped`. */
export function validateRules(rules: unknown, clusterScoped: boolean): StatusCause[] {
  if (rules === undefined || rules === null) return [];
  if (!Array.isArray(rules)) return [invalidValue('rules', rules, 'must be a list of PolicyRules')];
  const causes: StatusCause[] = [];
  rules.forEach((rule: KubeObject, i) => {
    const at = `rules[${i}]`;
    if (!rule || typeof rule !== 'object') {
      causes.push(invalidValue(at, rule, 'must be a PolicyRule'));
      return;
    }
    for (const field of ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs']) {
      if (rule[field] !== undefined && rule[field] !== null && strings(rule[field]) === undefined) {
        causes.push(invalidValue(`${at}.${field}`, rule[field], 'must be a list of strings'));
      }
    }
    if ((strings(rule.verbs) ?? []).length === 0) causes.push(required(`${at}.verbs`));
    const urls = strings(rule.nonResourceURLs) ?? [];
    const resources = strings(rule.resources) ?? [];
    if (urls.length > 0) {
      if (!clusterScoped) {
        causes.push(
          invalidValue(`${at}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'),
        );
      } else if (resources.length > 0 || (strings(rule.apiGroups) ?? []).length > 0) {
        causes.push(
          invalidValue(
            `${at}.nonResourceURLs`,
            urls,
            'rules cannot apply to both regular resources and non-resource URLs',
          ),
        );
      }
    } else {
      if ((strings(rule.apiGroups) ?? []).length === 0) {
        causes.push(required(`${at}.apiGroups`));
      }
      if (resources.length === 0) causes.push(required(`${at}.resources`));
    }
  });
  return causes;
}

const SUBJECT_KINDS = ['User', 'Group', 'ServiceAccount'] as const;

/** The causes of a binding's roleRef (unchanged from `old`'s) and subjects. */
export function validateBinding(
  obj: KubeObject,
  old: KubeObject | undefined,
  roleKinds: readonly string[],
  namespaced: boolean,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const ref: KubeObject | undefined = obj.roleRef;
  if (!ref || typeof ref !== 'object') {
    causes.push(required('roleRef'));
  } else {
    if (ref.apiGroup !== RBAC_GROUP) causes.push(unsupported('roleRef.apiGroup', ref.apiGroup, [RBAC_GROUP]));
    if (!roleKinds.includes(ref.kind)) causes.push(unsupported('roleRef.kind', ref.kind, roleKinds));
    if (typeof ref.name !== 'string' || ref.name === '') causes.push(required('roleRef.name'));
  }
  if (old && JSON.stringify(old.roleRef) !== JSON.stringify(obj.roleRef)) {
    causes.push(invalidValue('roleRef', obj.roleRef, 'cannot change roleRef'));
  }
  const subjects = obj.subjects;
  if (subjects !== undefined && subjects !== null && !Array.isArray(subjects)) {
    causes.push(invalidValue('subjects', subjects, 'must be a list of Subjects'));
    return causes;
  }
  (subjects ?? []).forEach((subject: KubeObject, i: number) => {
    const at = `subjects[${i}]`;
    if (!subject || typeof subject !== 'object') {
      causes.push(invalidValue(at, subject, 'must be a Subject'));
      return;
    }
    if (typeof subject.name !== 'string' || subject.name === '') causes.push(required(`${at}.name`));
    if (!(SUBJECT_KINDS as readonly string[]).includes(subject.kind)) {
      causes.push(unsupported(`${at}.kind`, subject.kind, SUBJECT_KINDS));
    } else if (subject.kind === 'ServiceAccount') {
      if (subject.apiGroup) causes.push(unsupported(`${at}.apiGroup`, subject.apiGroup, ['']));
      if (!namespaced && !subject.namespace) causes.push(required(`${at}.namespace`));
    } else if (subject.apiGroup !== RBAC_GROUP) {
      causes.push(unsupported(`${at}.apiGroup`, subject.apiGroup, [RBAC_GROUP]));
    }
  });
  return causes;
}
