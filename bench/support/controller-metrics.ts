// The controller's /metrics as a bench reads it. The endpoint answers only tokens the API server
// authenticates and authorizes (--metrics-auth, on by default): the bench's admin kubeconfig has one.

import { loadKubeConfig } from '../../src/kube/kube-config.ts';

/** The exposition text of `url`, fetched with the token of `kubeconfig`'s current user. */
export async function scrapeControllerMetrics(url: string, kubeconfig: string): Promise<string> {
  const token = loadKubeConfig({ kubeconfig }).getCurrentUser()?.token;
  const response = await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${await response.text()}`);
  return response.text();
}
