// Kubernetes' URL library: url('https://host:8443/p?q=1'), isURL, getScheme, getHost, getHostname,
// getPort, getEscapedPath, getQuery. Parsed as Go's url.ParseRequestURI (what kube uses): an absolute
// URL or an absolute path; the port is kept as written (Go does not drop default ports).

import type { Environment } from '@marcbachmann/cel-js';
import { EvaluationError } from '@marcbachmann/cel-js';

export class KubeUrl {
  readonly scheme: string;
  readonly host: string;
  readonly path: string;
  readonly query: string;
  constructor(scheme: string, host: string, path: string, query: string) {
    this.scheme = scheme;
    this.host = host;
    this.path = path;
    this.query = query;
  }
}

const ABSOLUTE = /^([a-zA-Z][a-zA-Z0-9+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?$/;
const PATH = /^(\/[^?#]*)(?:\?([^#]*))?$/;

export function parseUrl(s: string): KubeUrl | undefined {
  if (/[\s\x00-\x1f\x7f]/.test(s)) return undefined;
  const path = PATH.exec(s);
  if (path) return new KubeUrl('', '', path[1] as string, path[2] ?? '');
  const m = ABSOLUTE.exec(s);
  if (!m) return undefined;
  const authority = m[2] ?? '';
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  if (host.startsWith('[') && !/^\[[0-9a-fA-F:.]+(%[^\]]+)?\](:\d*)?$/.test(host)) return undefined;
  if (!host.startsWith('[') && host.split(':').length > 2) return undefined;
  return new KubeUrl(m[1] as string, host, m[3] as string, m[4] ?? '');
}

function url(s: string): KubeUrl {
  const u = parseUrl(s);
  if (!u) throw new EvaluationError(`URL parse error during conversion from string: ${s}`);
  return u;
}

function hostname(u: KubeUrl): string {
  if (u.host.startsWith('[')) return u.host.slice(1, u.host.indexOf(']'));
  const colon = u.host.lastIndexOf(':');
  return colon >= 0 ? u.host.slice(0, colon) : u.host;
}

function port(u: KubeUrl): string {
  const end = u.host.startsWith('[') ? u.host.indexOf(']') + 1 : 0;
  const colon = u.host.indexOf(':', end);
  return colon >= 0 ? u.host.slice(colon + 1) : '';
}

function query(u: KubeUrl): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [k, v] of new URLSearchParams(u.query)) out.set(k, [...(out.get(k) ?? []), v]);
  return out;
}

export function registerUrlLibrary(env: Environment): void {
  const U = 'kubernetes.URL';
  env.registerType(U, KubeUrl);
  env.registerFunction(`url(string): ${U}`, url);
  env.registerFunction('isURL(string): bool', (s: string) => parseUrl(s) !== undefined);
  env.registerFunction(`${U}.getScheme(): string`, (u: KubeUrl) => u.scheme);
  env.registerFunction(`${U}.getHost(): string`, (u: KubeUrl) => u.host);
  env.registerFunction(`${U}.getHostname(): string`, hostname);
  env.registerFunction(`${U}.getPort(): string`, port);
  env.registerFunction(`${U}.getEscapedPath(): string`, (u: KubeUrl) => u.path);
  env.registerFunction(`${U}.getQuery(): map<string, list<string>>`, query);
}
