// The dashboard of `nodeherd up`: the same page as `nodeherd dashboard`, on the local server that
// already serves the simulated nodes' APIs (at /dashboard/), acting with the cluster's admin
// credentials (the user's own, in `up`). Container nodes serve their own APIs, so with --nspawn it
// gets a server of its own on a free port.

import type { LocalCluster } from '../../up/local-cluster.ts';
import { Dashboard, DashboardServer } from './dashboard-server.ts';

export const UP_DASHBOARD_PREFIX = '/dashboard';

export interface UpDashboard {
  readonly dashboard: Dashboard;
  /** The address with the dashboard's secret: printed for the user who ran `nodeherd up`, nobody else. */
  readonly url: string;
  stop(): Promise<void>;
}

export async function serveUpDashboard(cluster: LocalCluster): Promise<UpDashboard> {
  const dashboard = new Dashboard({
    client: cluster.admin,
    context: { server: cluster.url, user: 'admin' },
  });
  const nodeApi = cluster.nodeApi;
  if (nodeApi) {
    nodeApi.mount(UP_DASHBOARD_PREFIX, (request, response, path) =>
      dashboard.handle(request, response, path),
    );
    return {
      dashboard,
      url: dashboard.urlFor(nodeApi.mountUrl(UP_DASHBOARD_PREFIX)),
      stop: () => dashboard.stop(),
    };
  }
  const server = await DashboardServer.listen(dashboard, '127.0.0.1', 0);
  return { dashboard, url: server.url, stop: () => server.close() };
}
