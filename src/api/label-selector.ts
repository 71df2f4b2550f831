// metav1.LabelSelector: validation with Kubernetes' rules and matching against a label set.

import { arrayAt, eachObject, type FieldErrors, objectAt, requiredValid, stringAt } from './field-errors.ts';
import type { LabelSelector } from './types.ts';

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

/** Why a label key is invalid, or undefined. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (slash >= 0) {
    const prefix = key.slice(0, slash);
    if (prefix.length === 0 || prefix.length > 253 || !PREFIX.test(prefix)) {
      return 'prefix must be a DNS subdomain (lower case, at most 253 characters)';
    }
  }
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) {
    return 'name part must be at most 63 characters: alphanumerics, -, _ or ., starting and ending alphanumeric';
  }
  return undefined;
}

export function labelValueProblem(value: string): string | undefined {
  if (value.length > 63 || !VALUE.test(value)) {
    return 'must be at most 63 characters: alphanumerics, -, _ or ., starting and ending alphanumeric';
  }
  return undefined;
}

export function validateLabelSelector(errors: FieldErrors, field: string, value: unknown): void {
  const selector = objectAt(errors, field, value);
  if (!selector) return;
  const matchLabels = objectAt(errors, `${field}.matchLabels`, selector.matchLabels);
  for (const [key, labelValue] of Object.entries(matchLabels ?? {})) {
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) errors.invalid(`${field}.matchLabels`, key, keyProblem);
    const v = stringAt(errors, `${field}.matchLabels[${key}]`, labelValue);
    const valueProblem = v === undefined ? undefined : labelValueProblem(v);
    if (valueProblem) errors.invalid(`${field}.matchLabels[${key}]`, v, valueProblem);
  }
  eachObject(errors, `${field}.matchExpressions`, selector.matchExpressions, (item, at) => {
    requiredValid(errors, `${at}.key`, item.key, labelKeyProblem);
    const values = arrayAt(errors, `${at}.values`, item.values);
    if (!OPERATORS.includes(item.operator)) {
      errors.notSupported(`${at}.operator`, item.operator, OPERATORS);
    } else if ((item.operator === 'In' || item.operator === 'NotIn') && values.length === 0) {
      errors.required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'");
    } else if ((item.operator === 'Exists' || item.operator === 'DoesNotExist') && values.length > 0) {
      errors.forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    }
    values.forEach((v, j) => {
      const s = stringAt(errors, `${at}.values[${j}]`, v);
      if (s !== undefined && labelValueProblem(s))
        errors.invalid(`${at}.values[${j}]`, s, labelValueProblem(s)!);
    });
  });
}

/** Whether labels satisfy the selector (an empty selector matches everything). */
export function matchesLabelSelector(
  selector: LabelSelector,
  labels: Record<string, string> | undefined,
): boolean {
  const have = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (have[key] !== value) return false;
  }
  for (const requirement of selector.matchExpressions ?? []) {
    const present = Object.hasOwn(have, requirement.key);
    const values = requirement.values ?? [];
    switch (requirement.operator) {
      case 'In':
        if (!present || !values.includes(have[requirement.key]!)) return false;
        break;
      case 'NotIn':
        if (present && values.includes(have[requirement.key]!)) return false;
        break;
      case 'Exists':
        if (!present) return false;
        break;
      case 'DoesNotExist':
        if (present) return false;
        break;
    }
  }
  return true;
}
