// ServiceAccount tokens as kube-apiserver issues them through TokenRequest (POST
// .../serviceaccounts/<name>/token): JWTs signed with the server's own key, with an audience, an
// expiry and an object they are bound to (a Pod or a Node). A pod's token names the Node the pod runs
// on, which kube (1.30+, ServiceAccountTokenPodNodeInfo) puts into the user's extra as
// authentication.kubernetes.io/node-name: that is how a DaemonSet's agent is confined to its node.
//
// ES256 with node:crypto: a JWT is three base64url parts and one signature, not worth a library. The
// signing key is made once per data dir (sa-signing.key, 0600) and published as a JWKS, like kube's
// /openid/v1/jwks, so any OIDC verifier can check the tokens.
//
// This module checks what the token itself says (signature, issuer, audience, lifetime); whether the
// objects it is bound to still exist is the caller's check (chain/authentication.ts), because only the
// caller reads the store: kube refuses a token whose pod was deleted or replaced (another uid).

import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomUUID,
  sign,
  verify,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../../util/atomic-write.ts';
import { NODE_NAME_EXTRA } from './identities.ts';

export const SIGNING_KEY_FILE = 'sa-signing.key';
/** kube-apiserver's --service-account-issuer as most distributions set it. */
export const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
/** TokenRequest's defaults and bounds (kube: 1 h default, at least 10 minutes, at most 2^32 s). */
export const DEFAULT_EXPIRATION_SECONDS = 3600;
export const MIN_EXPIRATION_SECONDS = 600;
export const MAX_EXPIRATION_SECONDS = 2 ** 32;
/** Clock skew tolerated on nbf and exp, as kube's validator does. */
const LEEWAY_SECONDS = 60;

export const EXTRA_POD_NAME = 'authentication.kubernetes.io/pod-name';
export const EXTRA_POD_UID = 'authentication.kubernetes.io/pod-uid';
export const EXTRA_NODE_NAME = NODE_NAME_EXTRA;
export const EXTRA_NODE_UID = 'authentication.kubernetes.io/node-uid';
export const EXTRA_CREDENTIAL_ID = 'authentication.kubernetes.io/credential-id';

export interface ObjectRef {
  name: string;
  uid: string;
}

/** The private "kubernetes.io" claim kube puts in every ServiceAccount token. */
export interface KubernetesClaims {
  namespace: string;
  serviceaccount: ObjectRef;
  pod?: ObjectRef;
  node?: ObjectRef;
}

export interface TokenClaims {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  'kubernetes.io': KubernetesClaims;
}

export interface IssueRequest extends KubernetesClaims {
  audiences: readonly string[];
  expirationSeconds: number;
  /** Seconds since the epoch (tests move it). */
  now?: number;
}

/** The user a valid token authenticates as: kube's user.Info for a ServiceAccount. */
export interface ServiceAccountUser {
  username: string;
  uid: string;
  groups: string[];
  extra: Record<string, string[]>;
  claims: TokenClaims;
}

export function serviceAccountUserName(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

const base64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

function jsonPart(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Whether a bearer token is shaped like a JWT (three base64url parts), i.e. worth verifying. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

export class ServiceAccountTokenIssuer {
  readonly issuer: string;
  /** The audience API requests must carry (kube: --api-audiences, default the issuer). */
  readonly apiAudiences: readonly string[];
  readonly keyId: string;
  readonly #privateKey: KeyObject;
  readonly #publicKey: KeyObject;

  private constructor(privateKey: KeyObject, issuer: string, apiAudiences: readonly string[]) {
    this.#privateKey = privateKey;
    this.#publicKey = createPublicKey(privateKey);
    this.issuer = issuer;
    this.apiAudiences = apiAudiences;
    // kube's key id: the base64url SHA-256 of the public key's DER.
    this.keyId = base64url(
      createHash('sha256')
        .update(this.#publicKey.export({ type: 'spki', format: 'der' }))
        .digest(),
    );
  }

  /** Loads the data dir's signing key, creating it on first use. */
  static open(
    dataDir: string,
    options: { issuer?: string; apiAudiences?: readonly string[] } = {},
  ): ServiceAccountTokenIssuer {
    const path = join(dataDir, SIGNING_KEY_FILE);
    let pem: string;
    try {
      pem = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      writeFileAtomicSync(path, pem, { mode: 0o600 });
    }
    const issuer = options.issuer ?? DEFAULT_ISSUER;
    return new ServiceAccountTokenIssuer(createPrivateKey(pem), issuer, options.apiAudiences ?? [issuer]);
  }

  issue(request: IssueRequest): { token: string; claims: TokenClaims } {
    const now = request.now ?? Math.floor(Date.now() / 1000);
    const kubernetes: KubernetesClaims = {
      namespace: request.namespace,
      serviceaccount: request.serviceaccount,
      ...(request.pod ? { pod: request.pod } : {}),
      ...(request.node ? { node: request.node } : {}),
    };
    const claims: TokenClaims = {
      aud: [...request.audiences],
      exp: now + request.expirationSeconds,
      iat: now,
      iss: this.issuer,
      jti: randomUUID(),
      'kubernetes.io': kubernetes,
      nbf: now,
      sub: serviceAccountUserName(request.namespace, request.serviceaccount.name),
    };
    const header = { alg: 'ES256', kid: this.keyId };
    const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
    const signature = sign('sha256', Buffer.from(input), {
      key: this.#privateKey,
      dsaEncoding: 'ieee-p1363',
    });
    return { token: `${input}.${base64url(signature)}`, claims };
  }

  /**
   * The user of a token this issuer signed for the API, or undefined: bad signature, another issuer,
   * no API audience, expired or not yet valid, or claims that are not a ServiceAccount's.
   */
  authenticate(token: string, now = Math.floor(Date.now() / 1000)): ServiceAccountUser | undefined {
    if (!looksLikeJwt(token)) return undefined;
    const [headerPart, payloadPart, signaturePart] = token.split('.') as [string, string, string];
    const header = jsonPart(headerPart) as { alg?: unknown; kid?: unknown } | undefined;
    if (header?.alg !== 'ES256' || (header.kid !== undefined && header.kid !== this.keyId)) return undefined;
    const signature = Buffer.from(signaturePart, 'base64url');
    if (signature.length !== 64) return undefined;
    const valid = verify(
      'sha256',
      Buffer.from(`${headerPart}.${payloadPart}`),
      { key: this.#publicKey, dsaEncoding: 'ieee-p1363' },
      signature,
    );
    if (!valid) return undefined;
    const claims = jsonPart(payloadPart) as TokenClaims | undefined;
    if (!claims || claims.iss !== this.issuer) return undefined;
    if (!Array.isArray(claims.aud) || !claims.aud.some((a) => this.apiAudiences.includes(a)))
      return undefined;
    if (typeof claims.exp !== 'number' || now > claims.exp + LEEWAY_SECONDS) return undefined;
    if (typeof claims.nbf === 'number' && now < claims.nbf - LEEWAY_SECONDS) return undefined;
    const kube = claims['kubernetes.io'];
    if (!kube || typeof kube.namespace !== 'string' || typeof kube.serviceaccount?.name !== 'string')
      return undefined;
    if (claims.sub !== serviceAccountUserName(kube.namespace, kube.serviceaccount.name)) return undefined;
    const extra: Record<string, string[]> = { [EXTRA_CREDENTIAL_ID]: [`JTI=${claims.jti}`] };
    if (kube.pod) {
      extra[EXTRA_POD_NAME] = [kube.pod.name];
      extra[EXTRA_POD_UID] = [kube.pod.uid];
    }
    if (kube.node) {
      extra[EXTRA_NODE_NAME] = [kube.node.name];
      if (kube.node.uid) extra[EXTRA_NODE_UID] = [kube.node.uid];
    }
    return {
      username: claims.sub,
      uid: kube.serviceaccount.uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${kube.namespace}`, 'system:authenticated'],
      extra,
      claims,
    };
  }

  /** /.well-known/openid-configuration, as kube serves it (the JWKS beside it). */
  openidConfiguration(jwksUri: string): Record<string, unknown> {
    return {
      issuer: this.issuer,
      jwks_uri: jwksUri,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
    };
  }

  /** /openid/v1/jwks: the public key that verifies every token. */
  jwks(): { keys: Record<string, unknown>[] } {
    const jwk = this.#publicKey.export({ format: 'jwk' });
    return { keys: [{ ...jwk, use: 'sig', alg: 'ES256', kid: this.keyId }] };
  }
}
