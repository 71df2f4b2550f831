// The embedded API server's PKI: a private CA created once per data dir and a serving certificate it
// signs. Clients (kubectl, @kubernetes/client-node, agents in containers) trust only that CA, which
// travels inline in their kubeconfig. ECDSA P-256 keys: accepted by Go's crypto/tls and Node alike,
// and fast to generate.
//
// The CA lives 10 years; the serving certificate 1 year and is re-issued on start when its SANs no
// longer match the request, when it expires within 30 days, or when it no longer matches the CA or
// its key. Re-issuing it keeps the CA, so existing kubeconfigs stay valid. Two processes initialising
// the same data dir at the same moment are not coordinated (the server is the only caller).

import { createPrivateKey, KeyObject, X509Certificate as NodeX509Certificate, webcrypto } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { isIPv4, isIPv6 } from 'node:net';
import { join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic-write.ts';
import { readTextIfPresent } from '../../util/read-if-present.ts';
import { x509 } from './x509-library.ts';

export interface PkiOptions {
  /** Hostnames or IP addresses the server is also reached by (e.g. a veth address for containers). */
  extraSans?: string[];
  /** Current time; tests move it to exercise expiry. */
  now?: Date;
}

export interface Pki {
  caPem: string;
  certPem: string;
  /** PKCS#8 PEM of the serving certificate's private key. */
  keyPem: string;
  /** What this call had to create: a new CA invalidates every kubeconfig that embeds the old one. */
  generated: { ca: boolean; server: boolean };
}

export interface PkiPaths {
  dir: string;
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
}

export const CA_VALIDITY_DAYS = 3650;
export const SERVER_VALIDITY_DAYS = 365;
export const RENEW_BEFORE_DAYS = 30;
/** SANs every serving certificate carries. */
export const DEFAULT_SANS: readonly string[] = ['localhost', '127.0.0.1', '::1'];

const DAY_MS = 24 * 60 * 60 * 1000;
// Tolerates clients whose clocks run a little behind ours.
const BACKDATE_MS = 60 * 60 * 1000;
const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;
const crypto = webcrypto;
type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

export function pkiPaths(dataDir: string): PkiPaths {
  const dir = join(dataDir, 'pki');
  return {
    dir,
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    serverCert: join(dir, 'server.crt'),
    serverKey: join(dir, 'server.key'),
  };
}

interface SubjectAltName {
  type: 'dns' | 'ip';
  value: string;
}

// The same IP can be spelled many ways (::1, 0:0:0:0:0:0:0:1); compare canonical forms only.
function canonicalIPv6(address: string): string {
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

const DNS_NAME = /^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Classifies and canonicalises one requested SAN; throws on something that is neither. */
export function parseSubjectAltName(raw: string): SubjectAltName {
  const trimmed = raw.trim();
  const unbracketed = trimmed.startsWith('[') && trimmed.endsWith(']') ? trimmed.slice(1, -1) : trimmed;
  if (isIPv4(unbracketed)) return { type: 'ip', value: unbracketed };
  if (isIPv6(unbracketed)) return { type: 'ip', value: canonicalIPv6(unbracketed) };
  const dns = trimmed.toLowerCase().replace(/\.$/, '');
  if (dns.length > 253 || !DNS_NAME.test(dns)) {
    throw new Error(`invalid subject alternative name ${JSON.stringify(raw)}: not a hostname or IP address`);
  }
  return { type: 'dns', value: dns };
}

function sanKey(san: SubjectAltName): string {
  return `${san.type}:${san.value}`;
}

function requestedSans(extraSans: readonly string[]): SubjectAltName[] {
  const unique = new Map<string, SubjectAltName>();
  for (const raw of [...DEFAULT_SANS, ...extraSans]) {
    const san = parseSubjectAltName(raw);
    unique.set(sanKey(san), san);
  }
  return [...unique.values()];
}

function sansOf(certPem: string): Set<string> {
  const extension = new x509.X509Certificate(certPem).getExtension(x509.SubjectAlternativeNameExtension);
  const names = extension?.names.toJSON() ?? [];
  return new Set(
    names
      .filter((name) => name.type === 'dns' || name.type === 'ip')
      .map((name) => sanKey(parseSubjectAltName(name.value))),
  );
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  return a.size === b.size && [...a].every((item) => b.has(item));
}

// Positive, 127-bit random serial: Go rejects negative serials, and the forced top bit keeps the
// DER encoding minimal.
function randomSerial(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x40;
  return Buffer.from(bytes).toString('hex');
}

async function generateKeyPair(): Promise<CryptoKeyPair> {
  return (await crypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
}

function privateKeyPem(key: CryptoKey): string {
  return KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }).toString();
}

function importSigningKey(pem: string): Promise<CryptoKey> {
  return Promise.resolve(createPrivateKey(pem).toCryptoKey(KEY_ALGORITHM, false, ['sign']) as CryptoKey);
}

interface Validity {
  notBefore: Date;
  notAfter: Date;
}

function validityFrom(now: Date, days: number): Validity {
  return {
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + days * DAY_MS),
  };
}

// Usable now and for at least RENEW_BEFORE_DAYS more.
function isFresh(cert: NodeX509Certificate, now: Date): boolean {
  const validFrom = new Date(cert.validFrom).getTime();
  const validTo = new Date(cert.validTo).getTime();
  return validFrom <= now.getTime() && validTo - RENEW_BEFORE_DAYS * DAY_MS > now.getTime();
}

async function createCa(now: Date): Promise<{ certPem: string; keyPem: string }> {
  const keys = await generateKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: randomSerial(),
      // A timestamp in the name keeps CAs of different data dirs apart in any trust store.
      name: `CN=nodeherd-ca@${Math.floor(now.getTime() / 1000)}`,
      ...validityFrom(now, CA_VALIDITY_DAYS),
      signingAlgorithm: SIGNING_ALGORITHM,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  return { certPem: cert.toString('pem'), keyPem: privateKeyPem(keys.privateKey) };
}

async function createServerCert(
  ca: { certPem: string; keyPem: string },
  sans: SubjectAltName[],
  now: Date,
): Promise<{ certPem: string; keyPem: string }> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKeyId =
    caCert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId ??
    (await x509.SubjectKeyIdentifierExtension.create(caCert.publicKey, false, crypto)).keyId;
  const keys = await generateKeyPair();
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: randomSerial(),
      subject: 'CN=nodeherd-apiserver',
      // The CA's own encoded name, so chain building matches it byte for byte.
      issuer: caCert.subjectName,
      ...validityFrom(now, SERVER_VALIDITY_DAYS),
      signingAlgorithm: SIGNING_ALGORITHM,
      publicKey: keys.publicKey,
      signingKey: await importSigningKey(ca.keyPem),
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(sans),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
        new x509.AuthorityKeyIdentifierExtension(caKeyId),
      ],
    },
    crypto,
  );
  return { certPem: cert.toString('pem'), keyPem: privateKeyPem(keys.privateKey) };
}

// A pair read from disk, or undefined when it is missing, unparsable or fails `accept`.
async function loadPair(
  certPath: string,
  keyPath: string,
  accept: (cert: NodeX509Certificate, key: KeyObject) => boolean,
): Promise<{ certPem: string; keyPem: string } | undefined> {
  const [certPem, keyPem] = await Promise.all([readTextIfPresent(certPath), readTextIfPresent(keyPath)]);
  if (certPem === undefined || keyPem === undefined) return undefined;
  let cert: NodeX509Certificate;
  let key: KeyObject;
  try {
    cert = new NodeX509Certificate(certPem);
    key = createPrivateKey(keyPem);
  } catch {
    return undefined;
  }
  if (!cert.checkPrivateKey(key) || !accept(cert, key)) return undefined;
  return { certPem, keyPem };
}

// Keys first: a crash between the two writes leaves a mismatched pair, which the next start
// detects (checkPrivateKey) and replaces.
async function savePair(certPath: string, keyPath: string, pair: { certPem: string; keyPem: string }) {
  await writeFileAtomic(keyPath, pair.keyPem, { mode: 0o600 });
  await writeFileAtomic(certPath, pair.certPem, { mode: 0o644 });
}

async function ensurePkiOnce(dataDir: string, options: PkiOptions): Promise<Pki> {
  const now = options.now ?? new Date();
  const paths = pkiPaths(dataDir);
  const sans = requestedSans(options.extraSans ?? []);
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });

  let ca = await loadPair(paths.caCert, paths.caKey, (cert) => cert.ca && isFresh(cert, now));
  const caGenerated = ca === undefined;
  if (!ca) {
    ca = await createCa(now);
    await savePair(paths.caCert, paths.caKey, ca);
  }

  const caCert = new NodeX509Certificate(ca.certPem);
  const wanted = new Set(sans.map(sanKey));
  let server = await loadPair(
    paths.serverCert,
    paths.serverKey,
    (cert) =>
      !cert.ca &&
      cert.checkIssued(caCert) &&
      cert.verify(caCert.publicKey) &&
      isFresh(cert, now) &&
      sameSet(sansOf(cert.toString()), wanted),
  );
  const serverGenerated = server === undefined;
  if (!server) {
    server = await createServerCert(ca, sans, now);
    await savePair(paths.serverCert, paths.serverKey, server);
  }

  return {
    caPem: ca.certPem,
    certPem: server.certPem,
    keyPem: server.keyPem,
    generated: { ca: caGenerated, server: serverGenerated },
  };
}

// Serialises concurrent calls for the same data dir within this process.
const inFlight = new Map<string, Promise<Pki>>();

/**
 * Loads the PKI of `dataDir`, creating or renewing what is missing, stale or mismatched.
 * Files: <dataDir>/pki/{ca.crt, ca.key (0600), server.crt, server.key (0600)}.
 */
export async function ensurePki(dataDir: string, options: PkiOptions = {}): Promise<Pki> {
  const previous = inFlight.get(dataDir) ?? Promise.resolve(undefined);
  const next = previous.catch(() => undefined).then(() => ensurePkiOnce(dataDir, options));
  inFlight.set(dataDir, next);
  try {
    return await next;
  } finally {
    if (inFlight.get(dataDir) === next) inFlight.delete(dataDir);
  }
}
