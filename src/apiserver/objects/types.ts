// What callers of the object service pass and get back: write, delete and list options, results, and
// the admission hook every write runs through. Kept apart from the verbs so each verb's file and the
// HTTP handlers share one vocabulary without importing each other.

import type { FieldSet } from '../managedfields/field-set.ts';
import type { ApplyPlan, Manager } from '../managedfields/managers.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import type { KubeObject } from '../storage/types.ts';

export type ObjectFilter = (object: KubeObject) => boolean;

/** A write as admission sees it: after defaulting and validation, before it is stored. */
export interface AdmissionRequest {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  def: ResourceDefinition;
  subresource: string | undefined;
  namespace: string | undefined;
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
}

/** Throws (an ApiError, usually 403) to refuse a write; runs on dry runs too, as kube's admission does. */
export type Admit = (request: AdmissionRequest) => void;

export interface WriteOptions {
  dryRun?: boolean;
  admit?: Admit;
  /** Strict rejects unknown fields, Warn reports them, Ignore (default) drops them silently. */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  subresource?: string | undefined;
  /** Who makes the write (recorded in metadata.managedFields); in-process writes default to the server. */
  fieldManager?: string | undefined;
  /** Server-side apply only: take over fields other managers own instead of failing with a conflict. */
  force?: boolean;
}

/** What a server-side apply adds to a write: the ownership plan, checked once the new state is final. */
export interface ApplyOwnership {
  managers: Manager[];
  plan: ApplyPlan;
  force: boolean;
  /** Fields kubectl may take over from its client-side apply without force. */
  allowed?: FieldSet | undefined;
  /** A last-applied-configuration annotation to keep in step (kubectl's server-side apply). */
  lastApplied?: string | undefined;
}

export interface WriteResult {
  object: KubeObject;
  warnings: string[];
  /** A server-side apply created the object (answered 201). */
  created?: boolean;
}

export interface DeleteOptions {
  dryRun?: boolean;
  admit?: Admit;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
}

export interface DeleteResult {
  object: KubeObject;
  /** False when finalizers keep the object around with a deletionTimestamp. */
  deleted: boolean;
}

export interface ListQuery {
  filter?: ObjectFilter;
  /** The name a field selector pins (metadata.name=X): read one key instead of scanning. */
  name?: string;
  limit?: number;
  continueToken?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListPage {
  items: KubeObject[];
  resourceVersion: string;
  continueToken?: string;
}

/** Patch application is injected so the object code stays about lifecycle, not patch formats. */
export type PatchApplier = (
  contentType: string,
  current: KubeObject,
  patch: Buffer,
  def: ResourceDefinition,
) => KubeObject;

export type NameValidator = (def: ResourceDefinition, name: string) => string | undefined;
