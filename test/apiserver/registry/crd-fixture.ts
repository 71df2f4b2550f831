// A CustomResourceDefinition as kube stores it once the naming controller has accepted it: the
// shared fixture of the registry and discovery tests.

import type { KubeObject } from '../../../src/apiserver/storage/types.ts';

export interface WidgetCrdOptions {
  established?: boolean;
  /** Versions in the order the CRD lists them. */
  versions?: KubeObject[];
  sizeDescription?: string;
}

export function widgetCrd(options: WidgetCrdOptions = {}): KubeObject {
  const established = options.established ?? true;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com', uid: 'u-1', resourceVersion: '7', generation: 1 },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: {
        plural: 'widgets',
        singular: 'widget',
        kind: 'Widget',
        listKind: 'WidgetList',
        shortNames: ['wd'],
        categories: ['all'],
      },
      versions: options.versions ?? [
        {
          name: 'v1alpha1',
          served: true,
          storage: false,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
            },
          },
        },
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size', priority: 0 }],
          selectableFields: [{ jsonPath: '.spec.color' }],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: 'A widget.',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    size: { type: 'integer', description: options.sizeDescription ?? 'How big.' },
                    color: { type: 'string' },
                  },
                },
                status: { type: 'object', properties: { ready: { type: 'boolean' } } },
              },
            },
          },
        },
        { name: 'v2beta1', served: false, storage: false },
      ],
    },
    status: {
      acceptedNames: {
        plural: 'widgets',
        singular: 'widget',
        kind: 'Widget',
        listKind: 'WidgetList',
        shortNames: ['wd'],
        categories: ['all'],
      },
      conditions: [
        { type: 'NamesAccepted', status: 'True' },
        { type: 'Established', status: established ? 'True' : 'False' },
      ],
      storedVersions: ['v1'],
    },
  };
}
