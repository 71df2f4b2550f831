// Adapters between the generic server machinery (object service, HTTP handlers) and the pure
// libraries it uses: patches, selectors, schemas, names and the profile's validators. Keeping the
// glue in one place keeps those libraries free of server types and the server free of their details.

import type { StatusCause } from './errors.ts';
import type { CompiledSelection, Rendering, RenderShape } from './http/resource-handler.ts';
import type { KindServices } from './kinds/builtin-kind.ts';
import { builtinKindOf, builtinStrategies } from './kinds/registration.ts';
import type { KindStrategy, StrategyLookup } from './objects/strategy.ts';
import { applyPatch } from './patch/apply-patch.ts';
import type { ApiServerProfile } from './profile.ts';
import type { ResourceDefinition } from './registry/resource-definition.ts';
import { applyDefaults } from './schema/defaulting.ts';
import { negotiateOutput, targetMismatch } from './schema/media-negotiation.ts';
import { nameIsDNSSubdomain } from './schema/names.ts';
import {
  type MetaGroupVersion,
  toPartialObjectMetadata,
  toPartialObjectMetadataList,
} from './schema/partial-object-metadata.ts';
import { pruneNonNullableNulls, pruneUnknownFields } from './schema/pruning.ts';
import { validateCustomResource } from './schema/structural-validation.ts';
import { buildTable, parseIncludeObject } from './schema/table.ts';
import { exactNameFromFieldSelector, fieldGetter, parseFieldSelector } from './selectors/field-selector.ts';
import {
  type LabelSelectorObject,
  labelSelectorFromObject,
  parseLabelSelector,
} from './selectors/label-selector.ts';
import type { KubeObject } from './storage/types.ts';

export function applyPatchFor(
  contentType: string,
  current: KubeObject,
  patch: Buffer,
  def: ResourceDefinition,
): KubeObject {
  return applyPatch(contentType, current, patch, def.kind, {
    builtin: def.builtin,
    patchMeta: def.patchMeta,
  });
}

/** Label and field selectors of a list or watch, compiled once per request. */
export function compileSelection(
  def: ResourceDefinition,
  labelSelector: string | null,
  fieldSelector: string | null,
): CompiledSelection {
  const labels = labelSelector ? parseLabelSelector(labelSelector) : undefined;
  const fields = fieldSelector
    ? parseFieldSelector(fieldSelector, Object.keys(def.selectableFields))
    : undefined;
  const getField = fieldGetter(def.selectableFields);
  const useLabels = labels && !labels.isEverything() ? labels : undefined;
  const useFields = fields && !fields.isEverything() ? fields : undefined;
  const selection: CompiledSelection = {};
  if (useLabels || useFields) {
    selection.filter = (object) =>
      (!useLabels || useLabels.matches(object.metadata?.labels)) &&
      (!useFields || useFields.matches(object, getField));
  }
  const name = fields ? exactNameFromFieldSelector(fields) : undefined;
  if (name !== undefined) selection.name = name;
  return selection;
}

/** What an exact field selector pins, for authorization (never from `!=`). */
export function fieldSelectorPins(fieldSelector: string | null): { name?: string; nodeName?: string } {
  if (!fieldSelector) return {};
  try {
    const parsed = parseFieldSelector(fieldSelector, ['spec.nodeName', ...anyFields(fieldSelector)]);
    const pins: { name?: string; nodeName?: string } = {};
    const name = parsed.requiresExactMatch('metadata.name');
    const nodeName = parsed.requiresExactMatch('spec.nodeName');
    if (name !== undefined) pins.name = name;
    if (nodeName !== undefined) pins.nodeName = nodeName;
    return pins;
  } catch {
    // The handler reports a malformed selector; authorization just sees no pins.
    return {};
  }
}

/** Field names mentioned in a selector, so parsing for pins never rejects a field the resource allows. */
function anyFields(fieldSelector: string): string[] {
  return fieldSelector
    .split(',')
    .map((term) => term.split(/!=|==|=/)[0]!.trim())
    .filter((f) => f !== '');
}

export function matchLabelSelectorObject(
  selector: KubeObject | undefined,
  labels: Record<string, string>,
): boolean {
  if (selector === undefined) return false;
  return labelSelectorFromObject(selector as LabelSelectorObject).matches(labels);
}

/** A built-in kind may have its own naming rule (a Namespace's is a DNS label); most are DNS subdomains. */
export function nameProblem(def: ResourceDefinition, name: string): string | undefined {
  const validator = builtinKindOf(def)?.validateName ?? nameIsDNSSubdomain;
  const problems = validator(name, false);
  return problems.length > 0 ? problems.join('; ') : undefined;
}

/** Decides JSON, Table or PartialObjectMetadata from the Accept header; 406 when none fits. */
export function renderingFor(
  accept: string | undefined,
  query: URLSearchParams,
  shape: RenderShape,
): Rendering {
  const negotiated = negotiateOutput(accept, { watch: shape.watch });
  if (!negotiated.ok) throw negotiated.error;
  const { target, apiVersion } = negotiated.choice;
  if (target === 'Object') return { kind: 'json' };
  if (target === 'Table') {
    return {
      kind: 'table',
      includeObject: parseIncludeObject(query.get('includeObject')),
      apiVersion: apiVersion!,
    };
  }
  // A watch streams single objects even when the client asked for the list form.
  const mismatch = shape.watch ? undefined : targetMismatch(target, shape.list);
  if (mismatch) throw mismatch;
  return { kind: 'metadata', apiVersion: apiVersion! };
}

export function presentFor(
  def: ResourceDefinition,
  objects: KubeObject[],
  rendering: Exclude<Rendering, { kind: 'json' }>,
  listMeta: KubeObject,
  options: { single: boolean; noHeaders?: boolean },
): KubeObject {
  const apiVersion = rendering.apiVersion as MetaGroupVersion;
  if (rendering.kind === 'metadata') {
    return options.single
      ? toPartialObjectMetadata(objects[0]!, apiVersion)
      : toPartialObjectMetadataList(objects, listMeta, apiVersion);
  }
  return buildTable(objects, {
    columns: def.printerColumns,
    includeObject: rendering.includeObject,
    apiVersion,
    listMeta,
    ...(options.noHeaders ? { noHeaders: true } : {}),
  }) as unknown as KubeObject;
}

/**
 * Structural-schema handling of custom resources, in kube's order: prune unknown fields (reported for
 * fieldValidation), drop disallowed nulls, apply defaults, then validate.
 */
export const customResourceStrategy: KindStrategy = {
  prune(obj, ctx) {
    const schema = ctx.def.schema;
    if (!schema) return [];
    const pruned = pruneUnknownFields(obj, schema);
    pruneNonNullableNulls(obj, schema);
    return pruned;
  },
  prepare(obj, _old, ctx) {
    if (ctx.def.schema) applyDefaults(obj, ctx.def.schema);
  },
  validate(obj, old, ctx) {
    return ctx.def.schema ? validateCustomResource(obj, ctx.def.schema, old) : [];
  },
};

/**
 * Built-in kinds carry top-level schemas only: unknown top-level fields (typos such as `datta:`) are
 * dropped and reported like kube does, while everything below them is kept as sent.
 */
export const builtinPruningStrategy: KindStrategy = {
  prune(obj, ctx) {
    return ctx.def.schema ? pruneUnknownFields(obj, ctx.def.schema) : [];
  },
};

/** Validation of the profile's kinds beyond their schemas (field paths, limits, conflicts). */
export function kindValidationStrategy(profile: ApiServerProfile): KindStrategy {
  return {
    supersedesEarlierCauses: true,
    validate(obj, old, ctx): StatusCause[] {
      if (ctx.subresource === 'status' || !profile.validate) return [];
      return profile.validate(ctx.def, obj, old);
    },
  };
}

/**
 * The strategies of every resource's writes: a built-in kind's (kinds/registration.ts) between the
 * pruning of unknown top-level fields and the profile's validation; a custom resource's structural
 * schema handling, then the profile's validation.
 */
export function strategyLookup(profile: ApiServerProfile, services: KindServices): StrategyLookup {
  const validateKinds = kindValidationStrategy(profile);
  const builtins = builtinStrategies(services, builtinPruningStrategy, [validateKinds]);
  const custom = [customResourceStrategy, validateKinds];
  return (def) => (def.builtin ? builtins(def) : custom);
}
