// The names shell completion offers from the cluster: NodeConfigPools' and Nodes', listed with the
// kubeconfig (and context) the command line names, bounded in time so a TAB never hangs on a cluster
// that does not answer.

import { PATHS } from '../controller/api-paths.ts';
import type { NameKind, NameLister } from './completion-command.ts';
import { withClient } from './kube-options.ts';

/** A TAB waits at most this long for the API server. */
const LIST_TIMEOUT_MS = 2_000;

export const listNames: NameLister = (kind: NameKind, options) =>
  withClient(options, async (client) => {
    const path = kind === 'pools' ? PATHS.nodeConfigPools : PATHS.nodes;
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('the API server did not answer in time')), LIST_TIMEOUT_MS).unref(),
    );
    const list = await Promise.race([client.list<{ metadata: { name: string } }>(path), timeout]);
    return list.items.map((item) => item.metadata.name).sort();
  });
