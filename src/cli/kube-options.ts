// --kubeconfig and --context, which every command that talks to the API server takes (after the
// subcommand, as kubectl and `kubectl nodeherd` users write them), and the client they lead to.

import type { Command } from 'commander';
import { type ClusterConfig, isLightClusterConfig, loadClusterConfig } from '../kube/cluster-config.ts';
import { KubeClient } from '../kube/kube-client.ts';
import { type ApiContext, CliError, describeApiError } from './cli-error.ts';

export interface KubeOptions {
  kubeconfig?: string;
  context?: string;
}

export function addKubeOptions(command: Command): Command {
  return command
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', "kubeconfig context to use instead of the file's current-context");
}

export interface Connection {
  client: KubeClient;
  context: ApiContext;
}

/**
 * The client for the kubeconfig the options name. A kubeconfig the light reader understands (a token or
 * a client certificate, as `nodeherd up` writes) never loads @kubernetes/client-node, whose import
 * alone took most of a `nodeherd status`.
 */
export async function connect(options: KubeOptions): Promise<Connection> {
  let config: ClusterConfig;
  try {
    config = await loadClusterConfig({
      ...(options.kubeconfig ? { kubeconfig: options.kubeconfig } : {}),
      ...(options.context ? { context: options.context } : {}),
    });
  } catch (error) {
    const where = options.kubeconfig ?? process.env.KUBECONFIG ?? '~/.kube/config';
    const code = (error as { code?: string }).code;
    const why = code === 'ENOENT' ? 'no such file' : error instanceof Error ? error.message : String(error);
    throw new CliError(`cannot use the kubeconfig ${where}: ${why}`);
  }
  const client = new KubeClient(config, { userAgent: 'nodeherd-cli', requestTimeoutMs: 20_000 });
  const user = isLightClusterConfig(config) ? config.userName : config.getCurrentUser()?.name;
  const contextName = isLightClusterConfig(config) ? config.contextName : config.getCurrentContext();
  return {
    client,
    context: {
      server: client.server.origin,
      ...(user ? { user } : {}),
      ...(contextName ? { context: contextName } : {}),
    },
  };
}

/** Runs `work` with a client; API errors become one-line CliErrors; the client is closed after. */
export async function withClient<T>(
  options: KubeOptions,
  work: (client: KubeClient) => Promise<T>,
): Promise<T> {
  const { client, context } = await connect(options);
  try {
    return await work(client);
  } catch (error) {
    throw new CliError(describeApiError(error, context));
  } finally {
    client.close();
  }
}
