// `nodeherd plan -f config.yaml [--pool P] [-o json]`: what applying NodeConfigs would do, pool by
// pool and node by node, before anything is applied. It only reads from the API server.

import { Command } from 'commander';
import { SECRETS_NAMESPACE } from '../../api/group.ts';
import { matchesLabelSelector } from '../../api/label-selector.ts';
import type { SecretLookup } from '../../api/render.ts';
import { selectConfigs } from '../../api/render.ts';
import type { NodeConfig, NodeConfigPool, NodeConfigRevision } from '../../api/types.ts';
import { PATHS } from '../../controller/api-paths.ts';
import type { KubeClient } from '../../kube/kube-client.ts';
import { isKubeError } from '../../kube/kube-error.ts';
import type { Node, Pod, Secret } from '../../kube/types.ts';
import { CliError } from '../cli-error.ts';
import { addKubeOptions, type KubeOptions, withClient } from '../kube-options.ts';
import { addOutputOption, type OutputFormat, terminalWidth, useColor } from '../output-options.ts';
import { unknownPoolError } from '../pool-lookup.ts';
import { poolMembers } from '../pool-objects.ts';
import { readConfigFile } from './config-file.ts';
import { type PlanReport, renderPlanReport } from './plan-render.ts';
import { poolChangeOf, poolsAfter } from './pool-change.ts';
import { planPoolOrder } from './pool-order.ts';
import { type PoolPlan, planPool } from './pool-plan.ts';

interface PlanOptions extends KubeOptions {
  filename: string;
  pool?: string;
  output: OutputFormat;
  color?: boolean;
}

type SecretRefKey = { namespace: string; name: string; key: string };

function secretRefsOf(configs: readonly NodeConfig[]): SecretRefKey[] {
  const refs: SecretRefKey[] = [];
  for (const config of configs) {
    for (const file of config.spec.files ?? []) {
      const ref = file.content?.secretRef;
      // Another namespace is refused by the renderer; never read there (issue 31).
      if (ref && ref.namespace === SECRETS_NAMESPACE)
        refs.push({ namespace: ref.namespace, name: ref.name, key: ref.key });
    }
  }
  return refs;
}

/** Reads the Secrets the configs reference, so the revision hash is the one the controller would make. */
async function secretLookup(client: KubeClient, configs: readonly NodeConfig[]): Promise<SecretLookup> {
  const secrets = new Map<string, Secret | undefined>();
  for (const ref of secretRefsOf(configs)) {
    const id = `${ref.namespace}/${ref.name}`;
    if (secrets.has(id)) continue;
    try {
      secrets.set(
        id,
        await client.get<Secret>(
          `/api/v1/namespaces/${encodeURIComponent(ref.namespace)}/secrets/${encodeURIComponent(ref.name)}`,
        ),
      );
    } catch (error) {
      if (!isKubeError(error, 404)) throw error;
      secrets.set(id, undefined);
    }
  }
  return (ref) => {
    const secret = secrets.get(`${ref.namespace}/${ref.name}`) as
      | (Secret & { data?: Record<string, string> })
      | undefined;
    const data = secret?.data?.[ref.key];
    if (data === undefined) return undefined;
    return {
      value: Buffer.from(data, 'base64'),
      uid: secret?.metadata.uid ?? '',
      resourceVersion: secret?.metadata.resourceVersion ?? '',
    };
  };
}

/** Whether the pool's selection involves a file config: selects it now, or selects its server version. */
function touches(
  pool: NodeConfigPool,
  fileConfigs: readonly NodeConfig[],
  serverConfigs: readonly NodeConfig[],
): boolean {
  const server = new Set(selectConfigs(pool, serverConfigs).map((c) => c.metadata.name));
  return fileConfigs.some(
    (c) => matchesLabelSelector(pool.spec.configSelector, c.metadata.labels) || server.has(c.metadata.name),
  );
}

export function planCommand(): Command {
  const command = new Command('plan')
    .description(
      'preview what applying NodeConfigs (and NodeConfigPools) would do: the new revision of every pool that selects them and, node by node in rollout order, the action and the file, unit and package changes (writes nothing)',
    )
    .requiredOption(
      '-f, --filename <file>',
      'YAML file with NodeConfigs and/or NodeConfigPools (- for stdin): a pool in it previews its own changes (selectors, strategy)',
    )
    .option('--pool <name>', 'only this pool');
  addOutputOption(command);
  addKubeOptions(command);
  return command.action(async (opts: PlanOptions) => {
    const file = await readConfigFile(opts.filename);
    const fileConfigs = file.configs.map((c) => c.config);
    const filePools = new Set(file.pools.map((p) => p.pool.metadata.name));
    const report = await withClient(opts, async (client) => {
      const [pools, configs, revisions, nodes] = await Promise.all([
        client.list<NodeConfigPool>(PATHS.nodeConfigPools),
        client.list<NodeConfig>(PATHS.nodeConfigs),
        client.list<NodeConfigRevision>(PATHS.revisions),
        client.list<Node>(PATHS.nodes),
      ]);
      // The pools as applying the file leaves them: its NodeConfigPools replace the server's.
      const allPools = poolsAfter(
        pools.items,
        file.pools.map((p) => p.pool),
      );
      const involved = (p: NodeConfigPool) =>
        filePools.has(p.metadata.name) || touches(p, fileConfigs, configs.items);
      let chosen: NodeConfigPool[];
      if (opts.pool !== undefined) {
        const pool = allPools.find((p) => p.metadata.name === opts.pool);
        if (!pool)
          throw unknownPoolError(
            opts.pool,
            allPools.map((p) => p.metadata.name),
          );
        if (!involved(pool)) {
          const selecting = allPools.filter(involved).map((p) => p.metadata.name);
          throw new CliError(
            `pool ${opts.pool} selects none of the NodeConfigs in ${file.path} (its configSelector does not match their labels); ${selecting.length > 0 ? `pools that do: ${selecting.join(', ')}` : 'no pool does'}`,
          );
        }
        chosen = [pool];
      } else {
        chosen = allPools.filter(involved);
      }
      const inPools = chosen.flatMap((pool) =>
        selectConfigs(pool, [
          ...configs.items.filter((c) => !fileConfigs.some((f) => f.metadata.name === c.metadata.name)),
          ...fileConfigs,
        ]),
      );
      const secrets = await secretLookup(client, inPools);
      const pods = await podsForOrder(client, chosen);
      const plans = chosen.map((pool) => {
        const inFile = file.pools.find((p) => p.pool.metadata.name === pool.metadata.name);
        const poolChange = inFile ? poolChangeOf(inFile, pools.items, allPools, nodes.items) : undefined;
        return planPool({
          pool,
          configs: configs.items,
          fileConfigs,
          revisions: revisions.items.filter((r) => r.spec?.pool === pool.metadata.name),
          ...(poolChange ? { otherRevisions: revisions.items, poolChange } : {}),
          nodes: poolMembers(pool, allPools, nodes.items),
          secrets,
          ...(pods ? { pods } : {}),
          now: Date.now(),
        });
      });
      const order = planPoolOrder(
        allPools,
        plans.filter((p) => p.revision && !p.unchanged).map((p) => p.pool),
      );
      const result: PlanReport = {
        file: file.path,
        configs: file.configs.map((c) => ({ name: c.config.metadata.name, line: c.line })),
        poolDocuments: file.pools.map((p) => ({ name: p.pool.metadata.name, line: p.line })),
        skipped: file.skipped,
        warnings: file.warnings,
        pools: plans,
        unaffected:
          opts.pool === undefined
            ? allPools.filter((p) => !chosen.includes(p)).map((p) => p.metadata.name)
            : [],
        ...(order ? { order } : {}),
      };
      return result;
    });
    process.stdout.write(
      opts.output === 'json'
        ? `${JSON.stringify(report, null, 2)}\n`
        : renderPlanReport(report, { color: useColor(opts), width: terminalWidth() }),
    );
    const broken = report.pools.filter((p) => p.problems.length > 0).map((p) => p.pool);
    if (broken.length > 0) {
      throw new CliError(
        `the NodeConfigs would not render for pool${broken.length === 1 ? '' : 's'} ${broken.join(', ')} (see above)`,
      );
    }
  });
}

/**
 * The plan of a pool's pending change: its NodeConfigs as they are on the server against its target,
 * node by node (what the controller renders next, or what the rollout in flight still has to do).
 * The dashboard shows it; `nodeherd plan -f` is the same with the file's configs added.
 */
export async function pendingChangePlan(client: KubeClient, poolName: string): Promise<PoolPlan> {
  const [pools, configs, revisions, nodes] = await Promise.all([
    client.list<NodeConfigPool>(PATHS.nodeConfigPools),
    client.list<NodeConfig>(PATHS.nodeConfigs),
    client.list<NodeConfigRevision>(PATHS.revisions),
    client.list<Node>(PATHS.nodes),
  ]);
  const pool = pools.items.find((p) => p.metadata.name === poolName);
  if (!pool)
    throw unknownPoolError(
      poolName,
      pools.items.map((p) => p.metadata.name),
    );
  const pods = await podsForOrder(client, [pool]);
  return planPool({
    pool,
    configs: configs.items,
    fileConfigs: [],
    revisions: revisions.items.filter((r) => r.spec?.pool === poolName),
    nodes: poolMembers(pool, pools.items, nodes.items),
    secrets: await secretLookup(client, selectConfigs(pool, configs.items)),
    ...(pods ? { pods } : {}),
    now: Date.now(),
  });
}

/** The cluster's pods, only when a pool's order counts them (spec.rolloutOrder by: FewestPods). */
async function podsForOrder(
  client: KubeClient,
  pools: readonly NodeConfigPool[],
): Promise<Pod[] | undefined> {
  if (!pools.some((p) => p.spec?.rolloutOrder?.by === 'FewestPods')) return undefined;
  try {
    return (await client.list<Pod>('/api/v1/pods')).items;
  } catch (err) {
    // Not allowed to list pods: the plan says the order it shows counts none (planPool's warning).
    if (isKubeError(err, 403)) return undefined;
    throw err;
  }
}
