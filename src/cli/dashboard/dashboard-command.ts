// `nodeherd dashboard [--address A] [--port P]`: the web view of every pool's rollout, against any
// cluster, with the user's kubeconfig: it reads with those credentials and its buttons act with them.
// It listens on 127.0.0.1 by default and answers only requests addressed to it that carry the secret
// of the URL it prints (request-guard.ts).

import { Command, InvalidArgumentError } from 'commander';
import { PATHS } from '../../controller/api-paths.ts';
import { CliError, describeApiError } from '../cli-error.ts';
import { addKubeOptions, connect, type KubeOptions } from '../kube-options.ts';
import { Dashboard, DashboardServer } from './dashboard-server.ts';

interface DashboardCommandOptions extends KubeOptions {
  address: string;
  port: number;
}

/** The dashboard's default port, next to the agent's local API (9469). */
export const DEFAULT_DASHBOARD_PORT = 9470;

function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535)
    throw new InvalidArgumentError('must be a port number from 0 to 65535');
  return n;
}

export function dashboardCommand(): Command {
  const command = new Command('dashboard')
    .description(
      "serve a web view of every pool's rollout (timeline, revisions, history, pending plan; pause, resume, rollback) on 127.0.0.1, with your kubeconfig's credentials",
    )
    .option('--address <address>', 'the IP address to listen on', '127.0.0.1')
    .option('-p, --port <port>', 'the port to listen on (0 picks a free one)', port, DEFAULT_DASHBOARD_PORT);
  addKubeOptions(command);
  return command.action(async (opts: DashboardCommandOptions) => {
    const { client, context } = await connect(opts);
    // One read first, so a wrong kubeconfig or a cluster without nodeherd fails here, in words.
    try {
      await client.list(PATHS.nodeConfigPools);
    } catch (error) {
      client.close();
      throw new CliError(describeApiError(error, context));
    }
    const dashboard = new Dashboard({ client, context });
    let server: DashboardServer;
    try {
      server = await DashboardServer.listen(dashboard, opts.address, opts.port);
    } catch (error) {
      await dashboard.stop();
      client.close();
      const code = (error as NodeJS.ErrnoException).code;
      throw new CliError(
        code === 'EADDRINUSE'
          ? `--port ${opts.port}: the port is already in use; choose another --port (0 picks a free one)`
          : `--address ${opts.address}: cannot listen there (${code ?? (error as Error).message})`,
      );
    }
    // The URL carries the dashboard's secret: whoever has it acts with this kubeconfig's credentials.
    process.stdout.write(`dashboard of ${context.server}: ${server.url} (Ctrl-C stops)\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await server.close();
    client.close();
  });
}
