// Where the credentials of each request come from, for the one transport (https-transport.ts): the
// light reader's CA with a bearer token (fixed, or from a file that rotates: token-source.ts) or a
// client certificate, for the agent; or the official client's KubeConfig, for the controller and the
// CLI (exec plugins, auth providers, proxies). KubeConfig is imported as a type only, so the agent
// never loads @kubernetes/client-node through this file.

import http from 'node:http';
import type https from 'node:https';
import type { AgentOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { HttpsTransportOptions } from './https-transport.ts';
import { type BearerTokenSource, FileTokenSource, StaticTokenSource } from './token-source.ts';

/** TLS material of the connection; a change replaces the keep-alive agent. */
export type TlsMaterial = Pick<
  AgentOptions,
  'ca' | 'cert' | 'key' | 'pfx' | 'passphrase' | 'servername' | 'rejectUnauthorized'
>;

/** What one request is sent with. */
export interface RequestCredentials {
  tls: TlsMaterial;
  /** Headers to add, e.g. Authorization. */
  headers: Record<string, string>;
  /** An agent of the caller's (a proxy's) to use instead of the pooled one. */
  agent?: http.Agent;
}

/** Where the credentials of each request come from. */
export interface CredentialSource {
  current(): RequestCredentials | Promise<RequestCredentials>;
  /** After a 401: reads them again; true when they changed, so the refused request is worth once more. */
  refresh(): boolean;
  /** Secrets recently sent, to scrub from error text. */
  secrets(): readonly string[];
}

/** A CA, and a bearer token (fixed or from a rotating file) or a client certificate: the light client's. */
export class StaticCredentials implements CredentialSource {
  readonly #tokens: BearerTokenSource | undefined;
  readonly #tls: TlsMaterial;

  constructor(
    options: Pick<HttpsTransportOptions, 'caPem' | 'token' | 'tokenFile' | 'clientCertPem' | 'clientKeyPem'>,
  ) {
    const certificate = options.clientCertPem !== undefined && options.clientKeyPem !== undefined;
    if (options.token === undefined && options.tokenFile === undefined && !certificate)
      throw new Error('a bearer token is required');
    this.#tokens =
      options.token !== undefined
        ? new StaticTokenSource(options.token)
        : options.tokenFile !== undefined
          ? new FileTokenSource(options.tokenFile)
          : undefined;
    this.#tls = {
      ca: options.caPem,
      ...(certificate ? { cert: options.clientCertPem, key: options.clientKeyPem } : {}),
    };
  }

  current(): RequestCredentials {
    return {
      tls: this.#tls,
      headers: this.#tokens ? { Authorization: `Bearer ${this.#tokens.current()}` } : {},
    };
  }

  refresh(): boolean {
    return this.#tokens?.refresh() ?? false;
  }

  secrets(): readonly string[] {
    return this.#tokens?.recent() ?? [];
  }
}

// Credentials are taken from the kubeconfig again after ttlMs, so rotated tokens and certificates
// are picked up; the transport replaces its keep-alive agent only when the TLS material changes.
export class KubeConfigCredentials implements CredentialSource {
  private readonly config: KubeConfig;
  private readonly ttlMs: number;
  private prepared: { credentials: RequestCredentials; expiresAt: number } | undefined;
  private preparing: Promise<RequestCredentials> | undefined;

  constructor(config: KubeConfig, ttlMs: number) {
    this.config = config;
    this.ttlMs = ttlMs;
  }

  current(): RequestCredentials | Promise<RequestCredentials> {
    if (this.prepared && this.prepared.expiresAt > Date.now()) return this.prepared.credentials;
    this.preparing ??= this.load().finally(() => {
      this.preparing = undefined;
    });
    return this.preparing;
  }

  refresh(): boolean {
    this.prepared = undefined;
    return false;
  }

  secrets(): readonly string[] {
    const authorization = this.prepared?.credentials.headers.Authorization;
    return authorization?.startsWith('Bearer ') ? [authorization.slice('Bearer '.length)] : [];
  }

  private async load(): Promise<RequestCredentials> {
    const options: https.RequestOptions = {};
    await this.config.applyToHTTPSOptions(options);
    const { ca, cert, key, pfx, passphrase, servername, rejectUnauthorized } = options;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(options.headers ?? {}))
      if (value !== undefined) headers[name] = String(value);
    const credentials: RequestCredentials = {
      tls: {
        ca,
        cert,
        key,
        pfx,
        passphrase,
        servername,
        ...(rejectUnauthorized !== undefined ? { rejectUnauthorized } : {}),
      },
      headers,
      // A proxy brings its own agent.
      ...(this.config.getCurrentCluster()?.proxyUrl && options.agent instanceof http.Agent
        ? { agent: options.agent }
        : {}),
    };
    this.prepared = { credentials, expiresAt: Date.now() + this.ttlMs };
    return credentials;
  }
}
