// Small readers the printer columns and field selectors of the built-in kinds share: a value as kubectl
// prints it, a count of a list or map, a time, and a field at a path (kube's selectable field sets
// always contain every key, empty when unset, so `spec.nodeName=` selects unscheduled pods).

import type { KubeObject } from '../../storage/types.ts';

export const NONE = '<none>';

export const text = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);

export const count = (value: unknown): number =>
  Array.isArray(value) ? value.length : value && typeof value === 'object' ? Object.keys(value).length : 0;

export const timeOf = (value: unknown): number =>
  typeof value === 'string' ? Date.parse(value) : Number.NaN;

/** A field selector's value: the field at `path`, '' when any step is missing. */
export const at =
  (...path: string[]) =>
  (obj: KubeObject): string => {
    let value: unknown = obj;
    for (const segment of path) {
      if (value === null || typeof value !== 'object') return '';
      value = (value as KubeObject)[segment];
    }
    return text(value);
  };
