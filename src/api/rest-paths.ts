// REST paths of the nodeherd.io collections, derived from the group, version and plurals in group.ts so
// every client (agent, controller, CLI) addresses them the same way.

import { GROUP, RESOURCES, VERSION } from './group.ts';

/** `/apis/nodeherd.io/v1alpha1`. */
export const GROUP_VERSION_PATH = `/apis/${GROUP}/${VERSION}`;

export const NODE_CONFIGS_PATH = `${GROUP_VERSION_PATH}/${RESOURCES.NodeConfig.plural}`;
export const NODE_CONFIG_POOLS_PATH = `${GROUP_VERSION_PATH}/${RESOURCES.NodeConfigPool.plural}`;
export const NODE_CONFIG_REVISIONS_PATH = `${GROUP_VERSION_PATH}/${RESOURCES.NodeConfigRevision.plural}`;
