// The Kubernetes package repositories as simulated nodes see them: pkgs.k8s.io's per-minor layout
// (https://pkgs.k8s.io/core:/stable:/v1.33/deb/ and .../rpm/, one repository per minor version, each
// offering kubelet, kubeadm, kubectl and cri-tools at that minor's patch releases, packaged as
// `1.33.2-1.1` for Debian and `1.33.2-150500.1.1` for RPM).
// The catalogue is small and made up (patch releases 0 to a fixed newest per minor), not a copy of the
// real index: what matters is that a version the repository does not have fails to install, as apt's
// "Version '1.33.99-1.1' for 'kubelet' was not found" does, and that a repository of another minor
// offers nothing of this one. A simulated node is a kubeadm-joined host: its base image has the kubelet
// package installed (BASE_KUBELET_PACKAGE_VERSION unless its description says otherwise).

import type { PackageCatalogue } from '../agent/executors/simulated-packages.ts';
import { KUBELET_PACKAGE } from '../api/kubelet-version.ts';
import type { RenderedRepository } from '../api/types.ts';

/** The newest patch release of each minor the simulated pkgs.k8s.io offers. */
export const KUBERNETES_MINORS: Readonly<Record<string, number>> = {
  '1.29': 15,
  '1.30': 14,
  '1.31': 13,
  '1.32': 9,
  '1.33': 5,
  '1.34': 1,
};

/** The packages each minor's repository offers. */
const PACKAGES = [KUBELET_PACKAGE, 'kubeadm', 'kubectl', 'cri-tools'];

/** The kubelet a simulated node's base image has (the Node's default nodeInfo.kubeletVersion). */
export const BASE_KUBELET_VERSION = 'v1.31.4';

const REPOSITORY = /^https:\/\/pkgs\.k8s\.io\/core:\/stable:\/v(\d+\.\d+)\/(deb|rpm)\/?$/;
/** The packaging revision of each layout. */
const RELEASE: Record<string, string> = { deb: '1.1', rpm: '150500.1.1' };

/** The repository's URI for a minor (`1.33`). */
export function kubernetesRepositoryUri(minor: string, layout: 'deb' | 'rpm' = 'deb'): string {
  return `https://pkgs.k8s.io/core:/stable:/v${minor}/${layout}/`;
}

/** The Debian package version of a kubelet version (`v1.31.4` → `1.31.4-1.1`). */
export function kubernetesPackageVersion(kubeletVersion: string): string {
  return `${kubeletVersion.replace(/^v/, '').replace(/[-+].*$/, '')}-1.1`;
}

/** What a pkgs.k8s.io repository offers, oldest first; undefined for any other repository. */
export function kubernetesCatalogue(repository: RenderedRepository): PackageCatalogue | undefined {
  const uri = (repository as { uri?: unknown }).uri;
  const match = typeof uri === 'string' ? REPOSITORY.exec(uri) : null;
  if (!match) return undefined;
  const [, minor, layout] = match as unknown as [string, string, string];
  const newest = KUBERNETES_MINORS[minor];
  if (newest === undefined) return {}; // a minor the mirror does not have: an empty index
  const versions = Array.from({ length: newest + 1 }, (_, patch) => `${minor}.${patch}-${RELEASE[layout]}`);
  return Object.fromEntries(PACKAGES.map((name) => [name, versions]));
}
