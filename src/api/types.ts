// TypeScript types of the nodeherd.io objects, derived from the schemas (never written twice).
// `...Spec` types are what users write; `Rendered...` types are after defaulting and rendering.

import type { ObjectMeta, OwnerReference } from '../util/kube-api-types.ts';
import type { conditionSchema, labelSelectorSchema } from './common-schemas.ts';
import type { API_VERSION } from './group.ts';
import type {
  maintenanceWindowSchema,
  nodeConfigPoolSpecSchema,
  nodeConfigPoolStatusSchema,
  renderConflictSchema,
  rollingUpdateSchema,
  updateStrategySchema,
} from './node-config-pool-schema.ts';
import type { nodeConfigRevisionSpecSchema, revisionSourceSchema } from './node-config-revision-schema.ts';
import type {
  DISRUPTION_ACTIONS,
  dropInSchema,
  fileContentSchema,
  fileSchema,
  healthProbeSchema,
  nodeConfigSpecSchema,
  nodeConfigStatusSchema,
  packageSchema,
  repositorySchema,
  secretRefSchema,
  unitSchema,
} from './node-config-schema.ts';
import type { InputOf, OutputOf } from './schema-builder.ts';

export type DisruptionAction = (typeof DISRUPTION_ACTIONS)[number];

export type LabelSelector = InputOf<typeof labelSelectorSchema>;
export type Condition = InputOf<typeof conditionSchema>;

export type NodeConfigSpec = InputOf<typeof nodeConfigSpecSchema>;
export type NodeConfigStatus = InputOf<typeof nodeConfigStatusSchema>;
export type FileSpec = InputOf<typeof fileSchema>;
export type FileContent = InputOf<typeof fileContentSchema>;
export type SecretRef = InputOf<typeof secretRefSchema>;
export type UnitSpec = InputOf<typeof unitSchema>;
export type DropIn = InputOf<typeof dropInSchema>;
export type HealthProbe = InputOf<typeof healthProbeSchema>;
export type RepositorySpec = InputOf<typeof repositorySchema>;
export type PackageSpec = InputOf<typeof packageSchema>;

/** A merged, defaulted and sorted NodeConfig spec, as stored in a revision. */
export type RenderedConfig = OutputOf<typeof nodeConfigSpecSchema>;
export type RenderedFile = OutputOf<typeof fileSchema>;
export type RenderedUnit = OutputOf<typeof unitSchema>;
export type RenderedRepository = OutputOf<typeof repositorySchema>;
export type RenderedPackage = OutputOf<typeof packageSchema>;
export type RenderedPolicies = RenderedConfig['disruptionPolicies'];

export type NodeConfigPoolSpec = InputOf<typeof nodeConfigPoolSpecSchema>;
export type NodeConfigPoolStatus = InputOf<typeof nodeConfigPoolStatusSchema>;
export type UpdateStrategy = InputOf<typeof updateStrategySchema>;
export type RollingUpdate = InputOf<typeof rollingUpdateSchema>;
export type DefaultedRollingUpdate = OutputOf<typeof rollingUpdateSchema>;
export type MaintenanceWindow = InputOf<typeof maintenanceWindowSchema>;
export type RenderConflict = InputOf<typeof renderConflictSchema>;

export type RevisionSpec = OutputOf<typeof nodeConfigRevisionSpecSchema>;
export type RevisionSource = InputOf<typeof revisionSourceSchema>;

export type { ObjectMeta, OwnerReference };

export interface NodeConfig {
  apiVersion: typeof API_VERSION;
  kind: 'NodeConfig';
  metadata: ObjectMeta;
  spec: NodeConfigSpec;
  status?: NodeConfigStatus;
}

export interface NodeConfigPool {
  apiVersion: typeof API_VERSION;
  kind: 'NodeConfigPool';
  metadata: ObjectMeta;
  spec: NodeConfigPoolSpec;
  status?: NodeConfigPoolStatus;
}

export interface NodeConfigRevision {
  apiVersion: typeof API_VERSION;
  kind: 'NodeConfigRevision';
  metadata: ObjectMeta;
  spec: RevisionSpec;
}
