// A NodeConfig-like structural schema shared by the schema tests: lists keyed by path and by unit
// name, enums with defaults, int-or-string, a string map, a preserved blob and an embedded resource.

import type { JSONSchemaProps } from '../../../src/apiserver/registry/resource-definition.ts';

export const nodeConfigSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      properties: {
        files: {
          type: 'array',
          maxItems: 4,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['path'],
          items: {
            type: 'object',
            required: ['path'],
            properties: {
              path: { type: 'string', pattern: '^/', maxLength: 64 },
              mode: { type: 'integer', minimum: 0, maximum: 4095, default: 420 },
              owner: { type: 'string', default: 'root' },
              content: {
                type: 'object',
                properties: {
                  inline: {
                    type: 'object',
                    properties: {
                      data: { type: 'string' },
                      encoding: { type: 'string', enum: ['plain', 'base64'], default: 'plain' },
                    },
                  },
                  secretRef: {
                    type: 'object',
                    required: ['name', 'key'],
                    properties: {
                      namespace: { type: 'string' },
                      name: { type: 'string' },
                      key: { type: 'string' },
                    },
                  },
                },
                oneOf: [{ required: ['inline'] }, { required: ['secretRef'] }],
              },
            },
          },
        },
        units: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: {
              name: {
                type: 'string',
                pattern: '^[a-zA-Z0-9:._@-]+\\.(service|socket|timer|mount|path|target)$',
              },
              enabled: { type: 'boolean', default: true },
              state: { type: 'string', enum: ['running', 'stopped'], default: 'running' },
              filePaths: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
              dropIns: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { name: { type: 'string' }, content: { type: 'string' } },
                },
              },
            },
          },
        },
        rollout: {
          type: 'object',
          default: {},
          properties: {
            maxUnavailable: {
              'x-kubernetes-int-or-string': true,
              anyOf: [{ type: 'integer' }, { type: 'string' }],
              default: 1,
            },
            batches: { type: 'integer', minimum: 1, exclusiveMaximum: true, maximum: 100, multipleOf: 1 },
            weight: { type: 'number', multipleOf: 0.5, minimum: 0, exclusiveMinimum: true },
          },
        },
        labels: { type: 'object', maxProperties: 3, additionalProperties: { type: 'string', maxLength: 8 } },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
        id: { type: 'string', format: 'uuid' },
        notBefore: { type: 'string', format: 'date-time', nullable: true },
        paused: { type: 'boolean' },
      },
    },
    status: {
      type: 'object',
      properties: {
        observedGeneration: { type: 'integer', format: 'int64' },
        conditions: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
          items: {
            type: 'object',
            required: ['type', 'status'],
            properties: {
              type: { type: 'string' },
              status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
            },
          },
        },
      },
    },
  },
};

/** A valid NodeConfig as a user would write it. */
export function validNodeConfig(): Record<string, any> {
  return {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: { name: 'base' },
    spec: {
      files: [
        { path: '/etc/motd', mode: 420, content: { inline: { data: 'hello' } } },
        { path: '/etc/app/token', content: { secretRef: { name: 'token', key: 'value' } } },
      ],
      units: [{ name: 'app.service', state: 'running', filePaths: ['/etc/motd'] }],
      rollout: { maxUnavailable: '25%', batches: 3, weight: 1.5 },
      labels: { tier: 'edge' },
      id: '123e4567-e89b-12d3-a456-426614174000',
    },
  };
}
