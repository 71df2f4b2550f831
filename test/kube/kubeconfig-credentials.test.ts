import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  KubeconfigFormatError,
  loadKubeconfigCredentials,
  readKubeconfigCredentialsSync,
} from '../../src/kube/kubeconfig-credentials.ts';
import { parseKubeconfig, renderKubeconfig } from '../../src/kube/kubeconfig-file.ts';

const root = mkdtempSync(join(tmpdir(), 'nodeherd-light-kubeconfig-'));
after(() => rmSync(root, { recursive: true, force: true }));

const caPem = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';
const token = 'Zm9vYmFyLXRva2VuLXZhbHVlLTMyLWJ5dGVzLWxvbmctLQ';
let fileCount = 0;

function write(text: string): string {
  const path = join(root, `kubeconfig-${fileCount++}`);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

test('reads what renderKubeconfig writes, exactly as parseKubeconfig does, for awkward names and tokens', () => {
  const names = [
    'nodeherd',
    'system:node:n1',
    'true',
    '123',
    'a: b',
    '#x',
    "it's",
    '-dash',
    'ünï 🚀',
    ' spaced ',
    'x'.repeat(300),
  ];
  const tokens = [token, '-starts-with-dash', '12345', 'has: colon', "quote'd"];
  for (const name of names) {
    for (const tok of tokens) {
      const spec = {
        server: 'https://127.0.0.1:6443',
        caPem,
        token: tok,
        clusterName: name,
        userName: `${name}-user`,
        contextName: `${name}-ctx`,
      };
      const text = renderKubeconfig(spec);
      const expected = parseKubeconfig(text);
      assert.ok(expected);
      const credentials = readKubeconfigCredentialsSync(write(text));
      assert.deepEqual(
        credentials,
        { server: expected.server, caPem: expected.caPem, token: expected.token },
        text,
      );
    }
  }
});

test('reads a kubectl-style file and a JSON kubeconfig', () => {
  const caData = Buffer.from(caPem).toString('base64');
  const kubectlStyle = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${caData}
    server: https://10.1.2.3:6443
  name: other
- cluster:
    certificate-authority-data: ${caData}
    server: https://10.0.0.1:6443
  name: prod
contexts:
- context:
    cluster: prod
    user: agent
  name: prod
current-context: prod
kind: Config
preferences: {}
users:
- name: agent
  user:
    token: ${token}
`;
  assert.deepEqual(readKubeconfigCredentialsSync(write(kubectlStyle)), {
    server: 'https://10.0.0.1:6443',
    caPem,
    token,
  });
  const json = JSON.stringify({
    'current-context': 'c',
    contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
    clusters: [{ name: 'k', cluster: { server: 'https://h:1', 'certificate-authority-data': caData } }],
    users: [{ name: 'u', user: { token } }],
  });
  assert.deepEqual(readKubeconfigCredentialsSync(write(json)), { server: 'https://h:1', caPem, token });
});

test('YAML beyond the subset: the sync reader refuses it, the async loader falls back to the full parser', async () => {
  const fancy = `${renderKubeconfig({ server: 'https://127.0.0.1:6443', caPem, token })}extra: &anchor x\nagain: *anchor\n`;
  const path = write(fancy);
  assert.throws(
    () => readKubeconfigCredentialsSync(path),
    (err: Error) =>
      err instanceof KubeconfigFormatError &&
      /beyond the subset/.test(err.message) &&
      !err.message.includes(token),
  );
  assert.deepEqual(await loadKubeconfigCredentials(path), { server: 'https://127.0.0.1:6443', caPem, token });
});

test('a file without an inline CA and a token is refused without quoting it', async () => {
  const clientCert = `apiVersion: v1
clusters:
- cluster: {server: "https://x"}
  name: k
`;
  const noToken = renderKubeconfig({ server: 'https://127.0.0.1:6443', caPem, token }).replace(
    /token: .*/,
    `client-key-data: ${token}`,
  );
  for (const text of [noToken, clientCert, '{"broken json', 'just a string\n']) {
    const path = write(text);
    for (const attempt of [
      () => readKubeconfigCredentialsSync(path),
      () => loadKubeconfigCredentials(path),
    ]) {
      await assert.rejects(
        async () => attempt(),
        (err: Error) =>
          err instanceof KubeconfigFormatError &&
          !err.message.includes(token) &&
          !err.message.includes('broken'),
      );
    }
  }
  assert.throws(() => readKubeconfigCredentialsSync(join(root, 'absent')), /ENOENT/);
});
