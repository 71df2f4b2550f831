// The controller↔agent protocol on Node objects, and the labels nodeherd puts on its own objects.

/** Written by the controller: the NodeConfigRevision the node should apply. */
export const DESIRED_REVISION_ANNOTATION = 'nodeherd.io/desired-revision';
/** Written by the agent: the revision last applied successfully. */
export const CURRENT_REVISION_ANNOTATION = 'nodeherd.io/current-revision';
/** Written by the agent: one of NODE_STATES. */
export const STATE_ANNOTATION = 'nodeherd.io/state';
/** Written by the agent: human-readable detail of the state. */
export const MESSAGE_ANNOTATION = 'nodeherd.io/message';

export const NODE_STATES = ['Idle', 'Applying', 'Verifying', 'Done', 'Failed'] as const;
export type NodeState = (typeof NODE_STATES)[number];

/** Node condition the agent maintains. */
export const NODE_CONFIG_READY_CONDITION = 'NodeConfigReady';

/** On NodeConfigRevisions (and nodes): the pool they belong to. */
export const POOL_LABEL = 'nodeherd.io/pool';
/** On NodeConfigRevisions: the revision number, for sorting and selecting. */
export const REVISION_LABEL = 'nodeherd.io/revision';
