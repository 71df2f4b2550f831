// Printer columns the built-in kinds share, as kubernetes pkg/printers/internalversion computes them:
// AGE, selectors, a workload's containers and images, a controller reference, int-or-string values.

import type { PrinterColumn } from '../../registry/resource-definition.ts';
import type { KubeObject } from '../../storage/types.ts';
import { NONE, text } from './readers.ts';

/** kube's duration.HumanDuration: the compact age kubectl shows ("5m", "3h20m", "2d"). */
export function humanDuration(milliseconds: number): string {
  // Go truncates toward zero: -1.5s is "0s", not "<invalid>".
  const seconds = Math.trunc(milliseconds / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${hours / 24}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 365 * 2) return `${days}d`;
  if (hours < 24 * 365 * 8)
    return days % 365 === 0 ? `${days / 365}y` : `${Math.floor(days / 365)}y${days % 365}d`;
  return `${Math.floor(days / 365)}y`;
}

export const age: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
};

export function selectorText(labels: unknown): string {
  const entries = Object.entries((labels ?? {}) as Record<string, unknown>);
  if (entries.length === 0) return NONE;
  return entries
    .map(([k, v]) => `${k}=${text(v)}`)
    .sort()
    .join(',');
}

export function labelSelectorText(selector: KubeObject | undefined): string {
  if (!selector) return NONE;
  const parts = Object.entries<unknown>(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${text(v)}`);
  for (const expr of (selector.matchExpressions ?? []) as KubeObject[]) {
    const values = (expr.values ?? []).join(',');
    if (expr.operator === 'In') parts.push(`${expr.key} in (${values})`);
    else if (expr.operator === 'NotIn') parts.push(`${expr.key} notin (${values})`);
    else if (expr.operator === 'Exists') parts.push(expr.key);
    else if (expr.operator === 'DoesNotExist') parts.push(`!${expr.key}`);
  }
  return parts.length === 0 ? NONE : parts.sort().join(',');
}

function templateContainers(field: 'name' | 'image'): (obj: KubeObject) => string {
  return (obj) => {
    const containers: KubeObject[] = obj.spec?.template?.spec?.containers ?? [];
    return containers.map((c) => text(c?.[field])).join(',');
  };
}

/** The wide (-o wide) columns of a workload with a pod template: its containers, images and selector. */
export const podTemplateColumns: PrinterColumn[] = [
  {
    name: 'Containers',
    type: 'string',
    priority: 1,
    jsonPath: '.spec.template.spec.containers[*].name',
    description: 'Container names.',
    compute: templateContainers('name'),
  },
  {
    name: 'Images',
    type: 'string',
    priority: 1,
    jsonPath: '.spec.template.spec.containers[*].image',
    description: 'Container images.',
    compute: templateContainers('image'),
  },
  {
    name: 'Selector',
    type: 'string',
    priority: 1,
    jsonPath: '.spec.selector',
    description: 'The pod label selector.',
    compute: (d) => labelSelectorText(d.spec?.selector),
  },
];

/** An integer column showing one count of the object's status, 0 while the status has none. */
export function statusCount(name: string, field: string, description: string): PrinterColumn {
  return {
    name,
    type: 'integer',
    jsonPath: `.status.${field}`,
    description,
    compute: (obj) => obj.status?.[field] ?? 0,
  };
}

export function controllerOf(obj: KubeObject): string {
  const owner = (obj.metadata?.ownerReferences ?? []).find((o: KubeObject) => o?.controller === true);
  if (!owner) return NONE;
  const group = text(owner.apiVersion).includes('/') ? text(owner.apiVersion).split('/')[0] : '';
  const kind = text(owner.kind).toLowerCase();
  return `${group ? `${kind}.${group}` : kind}/${text(owner.name)}`;
}

export const intOrStringOrNA = (value: unknown): string =>
  value === undefined || value === null ? 'N/A' : text(value);
