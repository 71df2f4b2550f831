// The /version document (apimachinery version.Info). We report kube 1.32: kubectl 1.32 (the one CI
// installs) is then an exact match and stays within its ±1 minor skew policy, and
// @kubernetes/client-node 2.x speaks to any 1.2x/1.3x server. The "+nodeherd" suffix is semver build
// metadata, as k3s uses ("v1.32.3+k3s1"): unlike a "-" pre-release tag, it still satisfies version
// constraints such as Helm's kubeVersion ">=1.25.0".

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

export const KUBE_MAJOR = 1;
export const KUBE_MINOR = 32;
export const KUBE_PATCH = 0;

const GO_ARCH: Record<string, string> = {
  x64: 'amd64',
  arm64: 'arm64',
  ia32: '386',
  arm: 'arm',
  ppc64: 'ppc64le',
  s390x: 's390x',
};

export interface VersionOptions {
  /** Commit of the nodeherd build, if known. */
  gitCommit?: string;
  /** RFC 3339 build time, if known. */
  buildDate?: string;
  /** Node's process.platform / process.arch; defaults to the running process. */
  platform?: string;
  arch?: string;
}

export function versionInfo(options: VersionOptions = {}): VersionInfo {
  const os = options.platform ?? process.platform;
  const arch = options.arch ?? process.arch;
  return {
    major: String(KUBE_MAJOR),
    minor: String(KUBE_MINOR),
    gitVersion: `v${KUBE_MAJOR}.${KUBE_MINOR}.${KUBE_PATCH}+nodeherd`,
    gitCommit: options.gitCommit ?? '',
    gitTreeState: options.gitCommit ? 'clean' : '',
    buildDate: options.buildDate ?? '1970-01-01T00:00:00Z',
    // The server is not written in Go: report the runtime that actually runs it.
    goVersion: `node${process.versions.node}`,
    compiler: 'node',
    platform: `${os === 'win32' ? 'windows' : os}/${GO_ARCH[arch] ?? arch}`,
  };
}
