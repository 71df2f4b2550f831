// The node agent's client: the one API client (../api-client.ts) with credentials from a kubeconfig
// read without a YAML library, or from the pod it runs in. The official client costs ~85 MB of RSS on
// every node; the agent needs a handful of verbs on a few objects, so it never loads it.

import { ApiClient } from '../api-client.ts';
import { HttpsTransport, type HttpsTransportOptions } from '../https-transport.ts';
import { inClusterCredentials, readKubeconfigCredentialsSync } from '../kubeconfig-credentials.ts';

export type { ListQuery } from '../api-client.ts';

export type LightKubeClientOptions = HttpsTransportOptions;

/** Options other than where to connect and as whom. */
export type ClientTuning = Omit<
  LightKubeClientOptions,
  'server' | 'caPem' | 'token' | 'tokenFile' | 'clientCertPem' | 'clientKeyPem'
>;

export class LightKubeClient extends ApiClient {
  constructor(options: LightKubeClientOptions) {
    super((counters) => new HttpsTransport(options, counters));
  }

  /**
   * A client for the current context of a kubeconfig with an inline CA and a bearer token, a token
   * file (read again when it changes: a rotated token is used without a restart) or a client certificate. Reads JSON
   * and the block YAML nodeherd and kubectl write without a YAML library; throws KubeconfigFormatError
   * for anything fancier (kubeconfig-credentials.ts's loadKubeconfigCredentials reads those).
   */
  static fromKubeconfig(path: string, options: ClientTuning = {}): LightKubeClient {
    return new LightKubeClient({ ...options, ...readKubeconfigCredentialsSync(path) });
  }

  /** A client of a pod: its ServiceAccount token (re-read on rotation) and the cluster CA. */
  static inCluster(options: ClientTuning = {}, env?: Record<string, string | undefined>): LightKubeClient {
    return new LightKubeClient({ ...options, ...inClusterCredentials(env) });
  }

  /** The API server's origin (scheme, host and port). */
  get server(): string {
    return this.transport.server.origin;
  }
}
