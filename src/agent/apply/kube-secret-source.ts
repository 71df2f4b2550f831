// Reads Secret values through the API server with the agent's own credential.

import { resourcePath } from '../../kube/light/api-paths.ts';
import type { LightKubeClient } from '../../kube/light/light-kube-client.ts';
import type { KubeObject } from '../../kube/light/types.ts';
import type { SecretSource, SecretValue } from './file-content.ts';

interface Secret extends KubeObject {
  data?: Record<string, string>;
}

export class KubeSecretSource implements SecretSource {
  private readonly client: LightKubeClient;

  constructor(client: LightKubeClient) {
    this.client = client;
  }

  async read(ref: { namespace: string; name: string; key: string }): Promise<SecretValue> {
    const path = resourcePath({
      apiVersion: 'v1',
      resource: 'secrets',
      namespace: ref.namespace,
      name: ref.name,
    });
    const secret = await this.client.get<Secret>(path);
    const value = secret.data?.[ref.key];
    if (value === undefined) throw new Error(`Secret ${ref.namespace}/${ref.name} has no key ${ref.key}`);
    return {
      value: Buffer.from(value, 'base64'),
      ...(secret.metadata?.uid !== undefined ? { uid: secret.metadata.uid } : {}),
      ...(secret.metadata?.resourceVersion !== undefined
        ? { resourceVersion: secret.metadata.resourceVersion }
        : {}),
    };
  }
}
