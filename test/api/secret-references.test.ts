// issue 31: a reference to a Secret names nodeherd's own namespace or is refused at the API with a field
// error, both by the embedded server (nodeherd's profile validators) and by the CRDs alone, as a real
// cluster's kube-apiserver judges them: here the generated CRDs installed under another group over HTTP,
// where nodeherd's profile does not apply.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { customResourceDefinitions } from '../../src/api/crds.ts';
import { GROUP, SECRETS_NAMESPACE } from '../../src/api/group.ts';
import { kubectlOk, type RawResponse, raw } from '../apiserver/conformance/support.ts';
import { type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';

const OTHER_GROUP = 'crd-only.nodeherd.example';
const FILE_REF = 'spec.files[0].content.secretRef.namespace';
const GATE_REF = 'spec.updateStrategy.rollingUpdate.healthGate.prometheus.credentialsSecretRef.namespace';

function nodeConfig(group: string, name: string, namespace: string) {
  return {
    apiVersion: `${group}/v1alpha1`,
    kind: 'NodeConfig',
    metadata: { name },
    spec: {
      files: [
        {
          path: '/etc/ssl/key.pem',
          mode: 0o600,
          content: { secretRef: { namespace, name: 'tls', key: 'k' } },
        },
      ],
    },
  };
}

function pool(group: string, name: string, namespace: string) {
  return {
    apiVersion: `${group}/v1alpha1`,
    kind: 'NodeConfigPool',
    metadata: { name },
    spec: {
      nodeSelector: {},
      configSelector: {},
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: {
          maxUnavailable: 1,
          healthGate: {
            prometheus: {
              url: 'http://prometheus.monitoring:9090',
              credentialsSecretRef: { namespace, name: 'reader' },
            },
            alerts: [{}],
          },
        },
      },
    },
  };
}

function fieldsOf(res: RawResponse): string[] {
  assert.equal(res.status, 422, res.text);
  return (res.json?.details?.causes ?? []).map((c: { field: string }) => c.field);
}

describe('references to Secrets outside nodeherd’s namespace', () => {
  let local: LocalApiServer;
  const post = (group: string, plural: string, body: unknown) =>
    raw(local, { method: 'POST', path: `/apis/${group}/v1alpha1/${plural}`, body: JSON.stringify(body) });

  before(async () => {
    local = await startLocalApiServer();
    // The generated CRDs, unchanged but for their group: only their schema judges these objects.
    for (const crd of customResourceDefinitions() as any[]) {
      const copy = structuredClone(crd);
      copy.spec.group = OTHER_GROUP;
      copy.metadata.name = `${copy.spec.names.plural}.${OTHER_GROUP}`;
      const res = await raw(local, {
        method: 'POST',
        path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        body: JSON.stringify(copy),
      });
      assert.equal(res.status, 201, res.text);
      await kubectlOk(local, [
        'wait',
        '--for=condition=Established',
        '--timeout=20s',
        `crd/${copy.metadata.name}`,
      ]);
    }
  });
  after(() => local?.stop());

  for (const [server, group] of [
    ['the embedded server', GROUP],
    ['the CRD schema alone', OTHER_GROUP],
  ] as const) {
    test(`${server} refuses a NodeConfig file whose secretRef names another namespace`, async () => {
      for (const namespace of ['kube-system', 'default']) {
        const res = await post(group, 'nodeconfigs', nodeConfig(group, `elsewhere-${namespace}`, namespace));
        assert.ok(fieldsOf(res).includes(FILE_REF), res.text);
      }
      const ok = await post(group, 'nodeconfigs', nodeConfig(group, 'own', SECRETS_NAMESPACE));
      assert.equal(ok.status, 201, ok.text);
    });

    test(`${server} refuses a health gate whose credentialsSecretRef names another namespace`, async () => {
      const res = await post(group, 'nodeconfigpools', pool(group, 'elsewhere', 'monitoring'));
      assert.ok(fieldsOf(res).includes(GATE_REF), res.text);
      const ok = await post(group, 'nodeconfigpools', pool(group, 'own', SECRETS_NAMESPACE));
      assert.equal(ok.status, 201, ok.text);
    });
  }
});
