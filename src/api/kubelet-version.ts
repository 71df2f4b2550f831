// The kubelet a revision pins, and what that means for the cluster: the version its Node must report
// (nodeInfo.kubeletVersion) before the node counts as updated, and whether the version skew policy
// allows it beside the API server (https://kubernetes.io/releases/version-skew-policy/: kubelet must
// not be newer than kube-apiserver, and may be up to three minor versions older; a kubelet older than
// 1.25 only two). Pure rules over a rendered config and version strings: the controller judges with
// them, the simulated nodes report with them.
//
// A package's version is the distribution's: `1.33.2-1.1` from pkgs.k8s.io's Debian repositories,
// `1.33.2-150500.1.1` from its RPM ones, `1:1.33.2-1.1` with an epoch. The kubelet's own version is the
// upstream part: the epoch and the packaging revision (after the last `-`) removed.

import { versionGlob } from './packages/package-rules.ts';
import type { RenderedConfig } from './types.ts';

/** The package whose pin is the kubelet's version (kubeadm's and pkgs.k8s.io's name). */
export const KUBELET_PACKAGE = 'kubelet';

/** The oldest kubelet minor the skew policy allows three minors behind; older ones only two. */
const THREE_MINOR_SKEW_SINCE = 25;

export interface KubeletPin {
  /** The package as the config names it (`kubelet`, `kubelet:amd64`). */
  package: string;
  /** The pinned package version, as written (`1.33.2-1.1`, `1.33.*`). */
  version: string;
  /** The upstream version the kubelet reports (`1.33.2`, `1.33.*`). */
  upstream: string;
  /** Major and minor, when the pin fixes them. */
  minor?: { major: number; minor: number };
}

/** The upstream version of a package version: no epoch, no packaging revision. */
export function upstreamVersion(packageVersion: string): string {
  const noEpoch = packageVersion.replace(/^\d+:/, '');
  const dash = noEpoch.lastIndexOf('-');
  return dash > 0 ? noEpoch.slice(0, dash) : noEpoch;
}

/** What a kubelet installed from this package version reports: `v1.33.2`. */
export function kubeletVersionOfPackage(packageVersion: string): string {
  return `v${upstreamVersion(packageVersion)}`;
}

/** The kubelet package a rendered config pins (present, with a version), if any. */
export function kubeletPin(config: Pick<RenderedConfig, 'packages'> | undefined): KubeletPin | undefined {
  for (const pkg of config?.packages ?? []) {
    const name = pkg.name.split(':')[0];
    if (name !== KUBELET_PACKAGE || pkg.state === 'absent' || pkg.version === undefined) continue;
    const upstream = upstreamVersion(pkg.version);
    const fixed = /^(\d+)\.(\d+)(?:\.|$)/.exec(upstream);
    return {
      package: pkg.name,
      version: pkg.version,
      upstream,
      ...(fixed ? { minor: { major: Number(fixed[1]), minor: Number(fixed[2]) } } : {}),
    };
  }
  return undefined;
}

/**
 * Whether a Node's nodeInfo.kubeletVersion is the pinned kubelet: its major.minor.patch against the
 * pin's upstream version (`*` matches anything). A provider's suffix (`v1.33.2-eks-1234abc`,
 * `v1.33.2+k3s1`) is not part of the comparison.
 */
export function kubeletVersionMatches(pin: KubeletPin, reported: string | undefined): boolean {
  if (reported === undefined) return false;
  const core = /^v?(\d+\.\d+\.\d+)/.exec(reported)?.[1];
  if (core === undefined) return false;
  const upstream = pin.upstream.replace(/[-+~].*$/, '');
  if (!upstream.includes('*')) return core === upstream;
  return versionGlob(upstream, core);
}

/** The API server's version as /version gives it (apimachinery version.Info). */
export interface ServerVersion {
  major: string;
  minor: string;
  gitVersion: string;
}

/** Major and minor of a /version document; providers write `"33+"` for the minor. */
export function serverMinor(version: ServerVersion): { major: number; minor: number } | undefined {
  const major = Number.parseInt(version.major, 10);
  const minor = Number.parseInt(version.minor, 10);
  if (Number.isInteger(major) && Number.isInteger(minor)) return { major, minor };
  const parsed = /^v?(\d+)\.(\d+)/.exec(version.gitVersion);
  return parsed ? { major: Number(parsed[1]), minor: Number(parsed[2]) } : undefined;
}

/**
 * Why the pinned kubelet breaks the version skew policy beside this API server, naming the package,
 * its version and the server's version; undefined when the policy allows it, or when the pin does not
 * fix a minor version (`1.*`) or the server's version cannot be read (nothing to judge).
 */
export function kubeletSkewProblem(pin: KubeletPin, server: ServerVersion): string | undefined {
  const api = serverMinor(server);
  const kubelet = pin.minor;
  if (!api || !kubelet) return undefined;
  const named = `${pin.package} ${pin.version} (kubelet v${kubelet.major}.${kubelet.minor})`;
  const at = `the API server's ${server.gitVersion}`;
  if (kubelet.major !== api.major)
    return `${named} is another major version than ${at}: the version skew policy allows kubelets of the API server's major version only`;
  if (kubelet.minor > api.minor)
    return `${named} is newer than ${at}: the version skew policy says a kubelet must not be newer than the API server; upgrade the control plane first`;
  const allowed = kubelet.minor < THREE_MINOR_SKEW_SINCE ? 2 : 3;
  if (api.minor - kubelet.minor > allowed)
    return `${named} is ${api.minor - kubelet.minor} minor versions older than ${at}: the version skew policy allows a kubelet at most ${allowed} minor versions older`;
  return undefined;
}
