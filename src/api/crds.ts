// The CustomResourceDefinitions of nodeherd.io, built from the schemas. deploy/crds/*.yaml is
// generated from these (src/api/generate-crds.ts), and the embedded API server can install them as is.

import type { JSONSchemaProps, PrinterColumn } from '../util/kube-api-types.ts';
import { CATEGORY, GROUP, KINDS, type Kind, RESOURCES, VERSION } from './group.ts';
import {
  NODE_CONFIG_POOL_RULES,
  nodeConfigPoolSpecSchema,
  nodeConfigPoolStatusSchema,
  poolNameSchema,
} from './node-config-pool-schema.ts';
import { nodeConfigRevisionSpecSchema } from './node-config-revision-schema.ts';
import { nodeConfigSpecSchema, nodeConfigStatusSchema } from './node-config-schema.ts';
import type { Rule } from './schema-builder.ts';

const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

interface KindDefinition {
  description: string;
  spec: JSONSchemaProps;
  status?: JSONSchemaProps;
  printerColumns: PrinterColumn[];
  selectableFields: string[];
  /** CEL rules at the root of the object (where metadata.name is visible). */
  rules?: Rule[];
  /** The schema of metadata.name, when it is narrower than a DNS subdomain. */
  name?: JSONSchemaProps;
}

const KIND_DEFINITIONS: Record<Kind, KindDefinition> = {
  NodeConfig: {
    description:
      'Files, systemd units, apt repositories and packages for nodes. NodeConfigPools select NodeConfigs by label ' +
      'and merge them in name order.',
    spec: nodeConfigSpecSchema.json,
    status: nodeConfigStatusSchema.json,
    printerColumns: [
      {
        name: 'Pools',
        type: 'string',
        jsonPath: '.status.pools',
        description: 'Pools using it.',
        priority: 1,
      },
      AGE,
    ],
    selectableFields: [],
  },
  NodeConfigPool: {
    description:
      'A set of nodes (nodeSelector) that gets a set of NodeConfigs (configSelector), and how updates roll out.',
    spec: nodeConfigPoolSpecSchema.json,
    status: nodeConfigPoolStatusSchema.json,
    rules: NODE_CONFIG_POOL_RULES,
    name: poolNameSchema.json,
    printerColumns: [
      {
        name: 'Target',
        type: 'string',
        jsonPath: '.status.targetRevision',
        description: 'Revision being rolled out.',
      },
      { name: 'Nodes', type: 'integer', jsonPath: '.status.nodes', description: 'Nodes selected.' },
      {
        name: 'Updated',
        type: 'integer',
        jsonPath: '.status.updated',
        description: 'Nodes on the target revision.',
      },
      {
        name: 'Ready',
        type: 'integer',
        jsonPath: '.status.ready',
        description: 'Updated nodes that are healthy.',
      },
      {
        name: 'Failed',
        type: 'integer',
        jsonPath: '.status.failed',
        description: 'Nodes that failed to apply.',
      },
      {
        name: 'Progress',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Progressing")].reason',
        description:
          'Why the rollout progresses or not (Progressing reason: Stalled, Paused, OutsideMaintenanceWindow, ...).',
      },
      {
        name: 'Waiting',
        type: 'integer',
        jsonPath: '.status.waiting',
        description: 'Nodes waiting for their turn (a batch, a slot, a start time, a resume or a window).',
        priority: 1,
      },
      {
        // Not "Available": beside Ready and Updated that read as healthy nodes, and showed 0 on healthy pools.
        name: 'OTA-Offered',
        type: 'integer',
        jsonPath: '.status.updateAvailable',
        description: 'OTA: nodes with the target revision on offer, waiting for their owner to take it.',
        priority: 1,
      },
      {
        name: 'Drifted',
        type: 'integer',
        jsonPath: '.status.drifted',
        description: 'Nodes whose agent found drift it did not repair (ConfigDrift True).',
        priority: 1,
      },
      {
        name: 'Paused',
        type: 'boolean',
        jsonPath: '.spec.paused',
        description: 'Whether the rollout is paused.',
      },
      {
        name: 'Next-Window',
        type: 'string',
        jsonPath: '.status.nextWindowOpen',
        description: 'When a maintenance window next opens.',
        priority: 1,
      },
      {
        name: 'Strategy',
        type: 'string',
        jsonPath: '.spec.updateStrategy.type',
        description: 'Update strategy.',
        priority: 1,
      },
      {
        name: 'Current',
        type: 'string',
        jsonPath: '.status.currentRevision',
        description: 'Revision of the last completed rollout.',
        priority: 1,
      },
      AGE,
    ],
    selectableFields: [],
  },
  NodeConfigRevision: {
    description:
      'The immutable, rendered configuration of a NodeConfigPool, named <pool>-<hash10>. Written by the controller.',
    spec: nodeConfigRevisionSpecSchema.json,
    printerColumns: [
      { name: 'Pool', type: 'string', jsonPath: '.spec.pool', description: 'Owning pool.' },
      { name: 'Revision', type: 'integer', jsonPath: '.spec.revision', description: 'Revision number.' },
      { name: 'Hash', type: 'string', jsonPath: '.spec.hash', description: 'Config hash.', priority: 1 },
      AGE,
    ],
    selectableFields: ['.spec.pool'],
  },
};

function openApiSchema(def: KindDefinition): JSONSchemaProps {
  return {
    type: 'object',
    description: def.description,
    properties: {
      apiVersion: { type: 'string', description: 'APIVersion of this object: nodeherd.io/v1alpha1.' },
      kind: { type: 'string', description: 'Kind of this object.' },
      metadata: def.name ? { type: 'object', properties: { name: def.name } } : { type: 'object' },
      spec: def.spec,
      ...(def.status ? { status: def.status } : {}),
    },
    required: ['spec'],
    ...(def.rules ? { 'x-kubernetes-validations': def.rules } : {}),
  };
}

/** The CRD manifest of one kind. */
export function customResourceDefinition(kind: Kind): Record<string, unknown> {
  const names = RESOURCES[kind];
  const def = KIND_DEFINITIONS[kind];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Cluster',
      names: {
        kind: names.kind,
        listKind: names.listKind,
        plural: names.plural,
        singular: names.singular,
        shortNames: names.shortNames,
        categories: [CATEGORY],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: openApiSchema(def) },
          ...(def.status ? { subresources: { status: {} } } : {}),
          additionalPrinterColumns: def.printerColumns,
          ...(def.selectableFields.length > 0
            ? { selectableFields: def.selectableFields.map((jsonPath) => ({ jsonPath })) }
            : {}),
        },
      ],
    },
  };
}

export function customResourceDefinitions(): Record<string, unknown>[] {
  return KINDS.map(customResourceDefinition);
}
