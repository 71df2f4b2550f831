// CustomResourceDefinition (apiextensions.k8s.io/v1): its definition, kube's defaults and validation of a
// CRD (schema/crd-defaults.ts, schema/crd-validation.ts), the cleanup finalizer it is created with, and
// the status every write computes (names accepted against the registry, Established, Terminating).
// Serving the resources a CRD defines, and removing them on deletion, is controllers/crd-controller.ts.

import { kubeTime } from '../../../util/kube-time.ts';
import type { KindStrategy } from '../../objects/strategy.ts';
import { CONDITION_TIMES } from '../../schema/builtin-decoding.ts';
import { applyCustomResourceDefinitionDefaults } from '../../schema/crd-defaults.ts';
import { validateCustomResourceDefinition } from '../../schema/crd-validation.ts';
import type { KubeObject } from '../../storage/types.ts';
import type { BuiltinKind, KindServices } from '../builtin-kind.ts';
import { builtin, withStatus } from '../shared/schemas.ts';

export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

function condition(type: string, status: string, reason: string, message: string, now: string): KubeObject {
  return { type, status, reason, message, lastTransitionTime: now };
}

/** Keeps conditions' lastTransitionTime when their status did not change. */
function mergeConditions(previous: KubeObject[] | undefined, next: KubeObject[]): KubeObject[] {
  return next.map((c) => {
    const before = previous?.find((p) => p.type === c.type);
    return before && before.status === c.status ? { ...c, lastTransitionTime: before.lastTransitionTime } : c;
  });
}

/**
 * Sets status on every write, synchronously, so a CRD is usable as soon as its create returns
 * (kubectl apply of a CRD followed by its resources works without waiting).
 */
function crdStatusStrategy(registry: KindServices['registry']): KindStrategy {
  return {
    prepare(obj, old, ctx) {
      if (ctx.operation === 'create') {
        const finalizers: string[] = obj.metadata.finalizers ?? [];
        if (!finalizers.includes(CRD_CLEANUP_FINALIZER))
          obj.metadata.finalizers = [...finalizers, CRD_CLEANUP_FINALIZER];
      }
      if (ctx.subresource === 'status' && old) return;
      const now = kubeTime();
      const clash = registry.namesConflict(obj);
      const names = obj.spec?.names ?? {};
      const accepted = {
        plural: names.plural,
        singular: names.singular || String(names.kind ?? '').toLowerCase(),
        kind: names.kind,
        listKind: names.listKind || `${names.kind}List`,
        ...(names.shortNames ? { shortNames: names.shortNames } : {}),
        ...(names.categories ? { categories: names.categories } : {}),
      };
      const terminating = obj.metadata.deletionTimestamp !== undefined;
      const conditions = clash
        ? [
            condition('NamesAccepted', 'False', 'MultipleNamesNotAllowed', clash, now),
            condition('Established', 'False', 'NotAccepted', 'not all names are accepted', now),
          ]
        : [
            condition('NamesAccepted', 'True', 'NoConflicts', 'no conflicts found', now),
            condition(
              'Established',
              'True',
              'InitialNamesAccepted',
              'the initial names have been accepted',
              now,
            ),
          ];
      if (terminating) {
        conditions.push(
          condition(
            'Terminating',
            'True',
            'InstanceDeletionInProgress',
            'CustomResource deletion is in progress',
            now,
          ),
        );
      }
      obj.status = {
        ...(obj.status ?? {}),
        conditions: mergeConditions(old?.status?.conditions, conditions),
        acceptedNames: clash ? (old?.status?.acceptedNames ?? {}) : accepted,
        storedVersions: [
          ...new Set([
            ...(old?.status?.storedVersions ?? []),
            ...((obj.spec?.versions ?? []) as KubeObject[]).filter((v) => v.storage).map((v) => v.name),
          ]),
        ],
      };
    },
  };
}

/** CRDs get kube's defaults (singular, listKind, conversion) and validation before they are served. */
const crdValidationStrategy: KindStrategy = {
  prepare(obj) {
    applyCustomResourceDefinitionDefaults(obj);
  },
  validate(obj) {
    return validateCustomResourceDefinition(obj);
  },
};

export const customResourceDefinitionKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      resource: 'customresourcedefinitions',
      kind: 'CustomResourceDefinition',
      namespaced: false,
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
      ...withStatus(
        'CustomResourceDefinition represents a resource that should be exposed on the API server. Its name MUST be in the format <.spec.name>.<.spec.group>.',
        'CustomResourceDefinition',
      ),
      printerColumns: [
        {
          name: 'Created At',
          type: 'string',
          jsonPath: '.metadata.creationTimestamp',
          description: 'When the definition was created (RFC 3339), as kubectl shows it.',
        },
      ],
      tracksGeneration: true,
    }),
  ],
  decoding: { times: CONDITION_TIMES },
  strategies: (services) => [crdValidationStrategy, crdStatusStrategy(services.registry)],
};
