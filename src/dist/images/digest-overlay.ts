// The overlay `npm run images` writes beside the images it built (<out-dir>/overlay/kustomization.yaml):
// deploy/ (and deploy/agent-daemonset when the agent image was built) with each image pinned by the
// digest of its manifest in the OCI layout, so what a cluster runs is exactly what was built. A registry
// keeps that digest when the manifest is copied as is (`skopeo copy oci:<layout>:<tag>
// docker://<registry>/<name>:<tag>`); set newName to the registry's name of the image.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

export interface PinnedImage {
  /** The name deploy/ uses (CONTROLLER_IMAGE_PLACEHOLDER, AGENT_IMAGE_PLACEHOLDER). */
  name: string;
  /** sha256:<hex> of the image manifest. */
  digest: string;
  /** Whether it is the agent's (its DaemonSet is then part of the overlay). */
  agent: boolean;
}

/** The digest of the manifest tagged `tag` in an OCI layout (index.json), as a registry will name it. */
export async function manifestDigest(layout: string, tag: string): Promise<string> {
  const index = JSON.parse(await readFile(join(layout, 'index.json'), 'utf8')) as {
    manifests?: { digest?: string; annotations?: Record<string, string> }[];
  };
  const entry = (index.manifests ?? []).find(
    (m) => m.annotations?.['org.opencontainers.image.ref.name'] === tag,
  );
  if (!entry?.digest || !/^sha256:[0-9a-f]{64}$/.test(entry.digest)) {
    throw new Error(`${layout}: no image manifest tagged ${tag}`);
  }
  return entry.digest;
}

/** The overlay's kustomization.yaml text, its paths relative to `overlayDir`. */
export function digestOverlay(overlayDir: string, deployDir: string, images: readonly PinnedImage[]): string {
  const base = relative(overlayDir, deployDir) || '.';
  const resources = [base, ...(images.some((i) => i.agent) ? [join(base, 'agent-daemonset')] : [])];
  const lines = [
    '# Written by `npm run images`: deploy/ with the images just built, pinned by manifest digest.',
    '# Copy each image keeping its manifest (skopeo copy oci:<layout>:<tag> docker://<registry>/<name>:<tag>),',
    '# set newName to its name in your registry, then: kubectl apply -k <this directory>',
    'apiVersion: kustomize.config.k8s.io/v1beta1',
    'kind: Kustomization',
    'resources:',
    ...resources.map((r) => `  - ${r}`),
    'images:',
    ...images.flatMap((i) => [
      `  - name: ${i.name}`,
      `    newName: registry.example.com/${i.name}`,
      `    digest: ${i.digest}`,
    ]),
  ];
  return `${lines.join('\n')}\n`;
}

/** Writes <outDir>/overlay/kustomization.yaml; returns its path. */
export async function writeDigestOverlay(
  outDir: string,
  deployDir: string,
  images: readonly PinnedImage[],
): Promise<string> {
  const overlayDir = join(outDir, 'overlay');
  await mkdir(overlayDir, { recursive: true });
  const path = join(overlayDir, 'kustomization.yaml');
  await writeFile(path, digestOverlay(overlayDir, deployDir, images));
  return path;
}
