// Loads the controller's kubeconfig through the official client, which understands every form a
// kubeconfig may take (client certificates, tokens, exec plugins, in-cluster service accounts):
// --kubeconfig wins over $KUBECONFIG, then ~/.kube/config, then the in-cluster service account.

import { KubeConfig } from '@kubernetes/client-node';

export interface KubeConfigOptions {
  /** Path of a kubeconfig file; default: $KUBECONFIG, ~/.kube/config, in-cluster. */
  kubeconfig?: string;
  /** Context to use instead of the file's current-context. */
  context?: string;
}

export function loadKubeConfig(options: KubeConfigOptions = {}): KubeConfig {
  const kc = new KubeConfig();
  if (options.kubeconfig) kc.loadFromFile(options.kubeconfig);
  else kc.loadFromDefault();
  if (options.context) {
    const names = kc.getContexts().map((c) => c.name);
    if (!names.includes(options.context)) {
      throw new Error(
        `context ${JSON.stringify(options.context)} is not in the kubeconfig (it has: ${names.join(', ') || 'none'})`,
      );
    }
    kc.setCurrentContext(options.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig names no cluster for its current context');
  return kc;
}
