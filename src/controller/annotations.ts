// Annotations the controller keeps on Nodes (besides nodeherd.io/desired-revision, the agent protocol)
// and on NodeConfigPools. They hold every fact the controller needs to continue after a restart: nothing a
// rollout depends on lives only in memory.

/** On a Node the controller cordoned itself; it uncordons only nodes carrying this. */
export const CORDONED_BY_ANNOTATION = 'nodeherd.io/cordoned-by';
export const CORDONED_BY_VALUE = 'nodeherd-controller';

/** On a Node being drained before it is given this revision (desired-revision is set once drained). */
export const DRAINING_FOR_ANNOTATION = 'nodeherd.io/draining-for';

/** On a Node: when the controller started its update to the desired (or draining-for) revision. */
export const UPDATE_STARTED_ANNOTATION = 'nodeherd.io/update-started';

/**
 * On a NodeConfigPool after a rollback (automatic or requested): the pool stays on `rollback-to` while its
 * NodeConfigs still render `rollback-from`. A config change (a new rendering) ends the hold; deleting
 * the annotations retries the held revision.
 */
export const ROLLBACK_TO_ANNOTATION = 'nodeherd.io/rollback-to';
export const ROLLBACK_FROM_ANNOTATION = 'nodeherd.io/rollback-from';

/** Node condition set while a Node is selected by more than one NodeConfigPool (none of them manages it). */
export const POOL_CONFLICT_CONDITION = 'NodeConfigPoolConflict';
