// Shared helpers of the conformance suite: raw HTTPS requests (for exact status codes and bodies the
// clients hide), kubectl that must succeed, a `kubectl get -w` child process, and polling.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubectlResult, LocalApiServer } from '../../support/local-apiserver.ts';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: any;
}

export interface RawRequest {
  method?: string;
  path: string;
  body?: string | Buffer;
  contentType?: string;
  /** Bearer token; defaults to the admin's. Pass null to send none. */
  token?: string | null;
  headers?: Record<string, string>;
}

/** The admin token from the data dir's kubeconfig (the server keeps only hashes). */
export function adminToken(local: LocalApiServer): string {
  return tokenOf(local.kubeConfig());
}

export function tokenOf(kc: KubeConfig): string {
  const token = kc.getCurrentUser()?.token;
  assert.ok(token, 'kubeconfig carries a bearer token');
  return token;
}

/** One HTTPS request against the server, trusting its CA. */
export function raw(local: LocalApiServer, req: RawRequest): Promise<RawResponse> {
  const url = new URL(req.path, local.server.url);
  const token = req.token === undefined ? adminToken(local) : req.token;
  const body = req.body === undefined ? undefined : Buffer.from(req.body);
  const headers: Record<string, string> = { Accept: 'application/json', ...(req.headers ?? {}) };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    headers['Content-Type'] = req.contentType ?? 'application/json';
    headers['Content-Length'] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    const r = httpsRequest(
      url,
      { method: req.method ?? 'GET', ca: local.server.caPem, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: any;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

/** Asserts a response is a Status error with the given code and reason. */
export function assertStatus(res: RawResponse, code: number, reason: string): void {
  assert.equal(res.status, code, `HTTP ${res.status}: ${res.text}`);
  assert.equal(res.json?.kind, 'Status', res.text);
  assert.equal(res.json.apiVersion, 'v1');
  assert.equal(res.json.status, 'Failure');
  assert.equal(res.json.code, code);
  assert.equal(res.json.reason, reason);
  assert.equal(typeof res.json.message, 'string');
  assert.ok(res.json.message.length > 0);
}

/** Runs kubectl and fails the test with its output unless it exits 0. */
export async function kubectlOk(local: LocalApiServer, args: string[], input?: string): Promise<string> {
  const result: KubectlResult = await local.kubectl(args, input !== undefined ? { input } : {});
  assert.equal(
    result.code,
    0,
    `kubectl ${args.join(' ')} failed (${result.code}):\n${result.stderr}\n${result.stdout}`,
  );
  return result.stdout;
}

/** `kubectl apply -f -` of the objects, as one List. */
export function kubectlApply(local: LocalApiServer, items: unknown[]): Promise<string> {
  return kubectlOk(local, ['apply', '-f', '-'], json({ apiVersion: 'v1', kind: 'List', items }));
}

export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** A long-running kubectl (e.g. `get -w`) whose output accumulates until it is stopped. */
export interface KubectlProcess {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  stop(): Promise<void>;
}

export function kubectlSpawn(local: LocalApiServer, args: string[]): KubectlProcess {
  const child = spawn('kubectl', args, {
    env: { ...process.env, KUBECONFIG: local.kubeconfigPath, HOME: join(local.kubeconfigPath, '..') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Splits a stream of concatenated (pretty-printed) JSON documents, as `kubectl -o json -w` prints them. */
export function parseJsonStream(text: string): any[] {
  const docs: any[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}') {
      depth--;
      if (depth === 0) docs.push(JSON.parse(text.slice(start, i + 1)));
    }
  }
  return docs;
}

export const json = (value: unknown): string => JSON.stringify(value);

/** A CustomResourceDefinition of `kind` (plural, singular, list kind) in `group`, serving `versions`. */
export function customResourceDefinition(options: {
  group: string;
  scope: 'Namespaced' | 'Cluster';
  plural: string;
  kind: string;
  shortNames?: string[];
  versions: Record<string, unknown>[];
}) {
  const { group, scope, plural, kind, shortNames, versions } = options;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope,
      names: {
        plural,
        singular: kind.toLowerCase(),
        kind,
        listKind: `${kind}List`,
        ...(shortNames ? { shortNames } : {}),
      },
      versions,
    },
  };
}

/** A raw watch request: its status, headers and the events received so far. */
export interface RawWatch {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  events: { type: string; object: any }[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export function rawWatch(local: LocalApiServer, path: string, token?: string): Promise<RawWatch> {
  const url = new URL(path, local.server.url);
  return new Promise((resolve, reject) => {
    const r = httpsRequest(
      url,
      {
        method: 'GET',
        ca: local.server.caPem,
        agent: false,
        headers: { Accept: 'application/json', Authorization: `Bearer ${token ?? adminToken(local)}` },
      },
      (res) => {
        const events: { type: string; object: any }[] = [];
        let buffered = '';
        let endResolve: () => void;
        const ended = new Promise<void>((r) => {
          endResolve = r;
        });
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
            const line = buffered.slice(0, nl).trim();
            buffered = buffered.slice(nl + 1);
            if (line !== '') events.push(JSON.parse(line));
          }
        });
        res.on('end', () => {
          // A refused watch answers one Status document without a trailing newline.
          if (buffered.trim() !== '') events.push(JSON.parse(buffered));
          buffered = '';
          endResolve();
        });
        res.on('close', () => endResolve());
        res.on('error', () => endResolve());
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          events,
          ended,
          close: () => {
            r.destroy();
          },
        });
      },
    );
    r.on('error', reject);
    r.end();
  });
}
