// The overlay `npm run images` writes (issue 33): deploy/ with the images pinned by the digest of the
// manifest each OCI layout holds; kubectl kustomize renders the controller and the agent DaemonSet with
// those digests. The layouts here are written by the test (building images needs buildah and root).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { AGENT_IMAGE_PLACEHOLDER, CONTROLLER_IMAGE_PLACEHOLDER } from '../../src/api/deploy-manifests.ts';
import { manifestDigest, writeDigestOverlay } from '../../src/dist/images/digest-overlay.ts';

const root = join(import.meta.dirname, '../..');

async function layout(dir: string, tag: string, digest: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest: `sha256:${'0'.repeat(64)}`,
          annotations: { 'org.opencontainers.image.ref.name': 'old' },
        },
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest,
          annotations: { 'org.opencontainers.image.ref.name': tag },
        },
      ],
    }),
  );
  return dir;
}

test('npm run images pins deploy/ to the digests it built, and kubectl kustomize renders them', async () => {
  const out = await mkdtemp(join(tmpdir(), 'nodeherd-images-'));
  try {
    const controllerDigest = `sha256:${'a'.repeat(64)}`;
    const agentDigest = `sha256:${'b'.repeat(64)}`;
    const controller = await layout(join(out, 'nodeherd-controller'), '1.2.3', controllerDigest);
    const agent = await layout(join(out, 'nodeherd-agent'), '1.2.3', agentDigest);
    assert.equal(await manifestDigest(controller, '1.2.3'), controllerDigest);
    await assert.rejects(manifestDigest(controller, '9.9.9'), /no image manifest tagged 9\.9\.9/);
    const overlay = await writeDigestOverlay(out, join(root, 'deploy'), [
      { name: CONTROLLER_IMAGE_PLACEHOLDER, digest: await manifestDigest(controller, '1.2.3'), agent: false },
      { name: AGENT_IMAGE_PLACEHOLDER, digest: await manifestDigest(agent, '1.2.3'), agent: true },
    ]);
    const { stdout } = await promisify(execFile)('kubectl', ['kustomize', join(overlay, '..')], {
      env: { ...process.env, HOME: out },
    });
    const docs = parseAllDocuments(stdout).map((d) => d.toJS() as Record<string, any>);
    const image = (kind: string) => docs.find((d) => d.kind === kind)!.spec.template.spec.containers[0].image;
    assert.equal(
      image('Deployment'),
      `registry.example.com/${CONTROLLER_IMAGE_PLACEHOLDER}@${controllerDigest}`,
    );
    assert.equal(image('DaemonSet'), `registry.example.com/${AGENT_IMAGE_PLACEHOLDER}@${agentDigest}`);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});
