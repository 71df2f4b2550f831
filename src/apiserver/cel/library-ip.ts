// Kubernetes' IP and CIDR libraries: ip('10.0.0.1'), isIP, ip.isCanonical, family, isUnspecified,
// isLoopback, isLinkLocalMulticast, isLinkLocalUnicast, isGlobalUnicast; cidr('10.0.0.0/8'), isCIDR,
// containsIP, containsCIDR, ip, masked, prefixLength; string() of both. Parsed as Go's netip: no
// zones, no leading zeros in IPv4, and (as kube requires) no IPv4-mapped IPv6 addresses.

import { isIPv4, isIPv6 } from 'node:net';
import type { Environment } from '@marcbachmann/cel-js';
import { EvaluationError } from '@marcbachmann/cel-js';

export class KubeIP {
  /** 4 or 16 bytes. */
  readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }
}

class IPNamespace {}

export class KubeCIDR {
  readonly ip: KubeIP;
  readonly prefix: number;
  constructor(ip: KubeIP, prefix: number) {
    this.ip = ip;
    this.prefix = prefix;
  }
}

function parseIPv6(s: string): Uint8Array {
  let text = s;
  const tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    tail.push(...(v4[1] as string).split('.').map(Number));
    text = `${text.slice(0, v4.index)}0:0`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const all = [...left, ...Array(8 - left.length - right.length).fill(0), ...right] as number[];
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  if (v4) bytes.set(tail, 12);
  return bytes;
}

const isMapped = (b: Uint8Array) =>
  b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;

/** The address, or undefined when kube's isIP would say false. */
export function parseIP(s: string): KubeIP | undefined {
  if (isIPv4(s)) {
    if (s.split('.').some((p) => p.length > 1 && p.startsWith('0'))) return undefined;
    return new KubeIP(Uint8Array.from(s.split('.').map(Number)));
  }
  if (!isIPv6(s) || s.includes('%')) return undefined;
  const bytes = parseIPv6(s);
  return isMapped(bytes) ? undefined : new KubeIP(bytes);
}

/** Go's netip String(): dotted IPv4, RFC 5952 IPv6 (lower case, longest zero run compressed). */
export function formatIP(ip: KubeIP): string {
  const b = ip.bytes;
  if (b.length === 4) return [...b].join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((b[2 * i] as number) << 8) | (b[2 * i + 1] as number));
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

function ip(s: string): KubeIP {
  const parsed = parseIP(s);
  if (!parsed) throw new EvaluationError(`IP Address '${s}' parse error during conversion from string`);
  return parsed;
}

export function parseCIDR(s: string): KubeCIDR | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(s);
  if (!m) return undefined;
  const address = parseIP(m[1] as string);
  const prefix = Number(m[2]);
  if (!address || prefix > address.bytes.length * 8 || ((m[2] as string).length > 1 && m[2]!.startsWith('0')))
    return undefined;
  return new KubeCIDR(address, prefix);
}

function cidr(s: string): KubeCIDR {
  const parsed = parseCIDR(s);
  if (!parsed) throw new EvaluationError(`network address parse error during conversion from string: ${s}`);
  return parsed;
}

function masked(c: KubeCIDR): KubeCIDR {
  const bytes = c.ip.bytes.map((byte, i) => {
    const bits = Math.max(0, Math.min(8, c.prefix - 8 * i));
    return byte & ((0xff << (8 - bits)) & 0xff);
  });
  return new KubeCIDR(new KubeIP(bytes), c.prefix);
}

function containsIP(c: KubeCIDR, address: KubeIP): boolean {
  if (address.bytes.length !== c.ip.bytes.length) return false;
  const a = masked(new KubeCIDR(address, c.prefix)).ip.bytes;
  const n = masked(c).ip.bytes;
  return a.every((x, i) => x === n[i]);
}

const inPrefix = (address: KubeIP, network: string) => containsIP(cidr(network), address);

function isGlobalUnicast(a: KubeIP): boolean {
  if (a.bytes.length === 4) {
    return !['0.0.0.0/32', '255.255.255.255/32', '127.0.0.0/8', '224.0.0.0/4', '169.254.0.0/16'].some((n) =>
      inPrefix(a, n),
    );
  }
  return !['::/128', '::1/128', 'ff00::/8', 'fe80::/10'].some((n) => inPrefix(a, n));
}

export function registerIPLibrary(env: Environment): void {
  const IP = 'net.IP';
  const CIDR = 'net.CIDR';
  env.registerType(IP, KubeIP);
  env.registerType(CIDR, KubeCIDR);
  env.registerFunction(`ip(string): ${IP}`, ip);
  env.registerFunction('isIP(string): bool', (s: string) => parseIP(s) !== undefined);
  // ip.isCanonical(s): a function in the `ip` namespace, like the library's own optional.of.
  env.registerType('IPNamespace', IPNamespace);
  env.registerConstant('ip', 'IPNamespace', new IPNamespace());
  env.registerFunction(
    'IPNamespace.isCanonical(string): bool',
    (_: IPNamespace, s: string) => formatIP(ip(s)) === s,
  );
  env.registerFunction(`string(${IP}): string`, formatIP);
  env.registerFunction(`${IP}.family(): int`, (a: KubeIP) => (a.bytes.length === 4 ? 4n : 6n));
  env.registerFunction(`${IP}.isUnspecified(): bool`, (a: KubeIP) => a.bytes.every((x) => x === 0));
  env.registerFunction(`${IP}.isLoopback(): bool`, (a: KubeIP) =>
    a.bytes.length === 4 ? a.bytes[0] === 127 : inPrefix(a, '::1/128'),
  );
  env.registerFunction(`${IP}.isLinkLocalMulticast(): bool`, (a: KubeIP) =>
    inPrefix(a, a.bytes.length === 4 ? '224.0.0.0/24' : 'ff02::/16'),
  );
  env.registerFunction(`${IP}.isLinkLocalUnicast(): bool`, (a: KubeIP) =>
    inPrefix(a, a.bytes.length === 4 ? '169.254.0.0/16' : 'fe80::/10'),
  );
  env.registerFunction(`${IP}.isGlobalUnicast(): bool`, isGlobalUnicast);
  env.registerOperator(`${IP} == ${IP}`, (a: KubeIP, b: KubeIP) => formatIP(a) === formatIP(b));

  env.registerFunction(`cidr(string): ${CIDR}`, cidr);
  env.registerFunction('isCIDR(string): bool', (s: string) => parseCIDR(s) !== undefined);
  env.registerFunction(`string(${CIDR}): string`, (c: KubeCIDR) => `${formatIP(c.ip)}/${c.prefix}`);
  env.registerFunction(`${CIDR}.ip(): ${IP}`, (c: KubeCIDR) => c.ip);
  env.registerFunction(`${CIDR}.prefixLength(): int`, (c: KubeCIDR) => BigInt(c.prefix));
  env.registerFunction(`${CIDR}.masked(): ${CIDR}`, masked);
  env.registerFunction(`${CIDR}.containsIP(${IP}): bool`, containsIP);
  env.registerFunction(`${CIDR}.containsIP(string): bool`, (c: KubeCIDR, s: string) => containsIP(c, ip(s)));
  env.registerFunction(
    `${CIDR}.containsCIDR(${CIDR}): bool`,
    (c: KubeCIDR, o: KubeCIDR) => o.prefix >= c.prefix && containsIP(c, o.ip),
  );
  env.registerFunction(`${CIDR}.containsCIDR(string): bool`, (c: KubeCIDR, s: string) => {
    const o = cidr(s);
    return o.prefix >= c.prefix && containsIP(c, o.ip);
  });
  env.registerOperator(
    `${CIDR} == ${CIDR}`,
    (a: KubeCIDR, b: KubeCIDR) => a.prefix === b.prefix && formatIP(a.ip) === formatIP(b.ip),
  );
}
