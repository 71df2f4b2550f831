// Runs `nodeherd apiserver` as a separate process (so it can be SIGKILLed) and talks to it over HTTPS
// with the admin credential from its data dir.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const CLI = join(ROOT, 'bin', 'nodeherd.ts');

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  port: number;
  /** Resolves with the exit code or signal when the process ends. */
  exited: Promise<string>;
  output(): string;
}

/** Starts the API server process on dataDir and waits until it listens. */
export async function startServerProcess(
  dataDir: string,
  port = 0,
  extraArgs: string[] = [],
): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [CLI, 'apiserver', '--data-dir', dataDir, '--port', String(port), ...extraArgs],
    {
      cwd: ROOT,
      env: { ...process.env, NODEHERD_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? String(code))),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (https:\/\/[^\s]+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    exited.then((how) => reject(new Error(`API server exited (${how}) before listening:\n${output}`)));
  });
  return { child, url, port: Number(new URL(url).port), exited, output: () => output };
}

export interface AdminClient {
  request(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  close(): void;
}

/** Kills the process if it still runs (a test's cleanup) and waits for it to end. */
export async function killServerProcess(server: ServerProcess | undefined): Promise<void> {
  if (server && server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
}

/** The admin bearer token and the cluster CA from a data dir's kubeconfig. */
export function adminCredential(dataDir: string): { token: string; ca: Buffer } {
  const kc = new KubeConfig();
  kc.loadFromFile(join(dataDir, 'kubeconfig'));
  return {
    token: kc.getCurrentUser()!.token!,
    ca: Buffer.from(kc.getCurrentCluster()!.caData!, 'base64'),
  };
}

/** An HTTPS client with the admin token and CA of a data dir, over one keep-alive connection. */
export function adminClient(dataDir: string, url: string): AdminClient {
  const { token, ca } = adminCredential(dataDir);
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca });
  return {
    request(method, path, body) {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      return new Promise((resolve, reject) => {
        const req = httpsRequest(
          new URL(path, url),
          {
            method,
            agent,
            headers: {
              Authorization: `Bearer ${token}`,
              Accept: 'application/json',
              ...(payload
                ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) }
                : {}),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              try {
                resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) });
              } catch (err) {
                reject(err);
              }
            });
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    },
    close() {
      agent.destroy();
    },
  };
}

/**
 * The server process of a kill test on a data dir of its own: started, SIGKILLed mid-stream and
 * started again on the same dir and port; after the file's tests, killed and its dir removed.
 */
export class KilledServer {
  readonly dataDir: string;
  private current: ServerProcess | undefined;
  private port = 0;

  constructor(prefix: string) {
    this.dataDir = mkdtempSync(join(tmpdir(), prefix));
    after(async () => {
      await killServerProcess(this.current);
      rmSync(this.dataDir, { recursive: true, force: true });
    });
  }

  /** The running process (start() first). */
  get process(): ServerProcess {
    if (!this.current) throw new Error('the server was not started');
    return this.current;
  }

  /** Starts the server on the data dir, on the port of the first start (clients reconnect to it). */
  async start(): Promise<ServerProcess> {
    this.current = await startServerProcess(this.dataDir, this.port);
    this.port = this.current.port;
    return this.current;
  }

  /** SIGKILLs the server and checks it died of it. */
  async kill(): Promise<void> {
    this.process.child.kill('SIGKILL');
    assert.equal(await this.process.exited, 'SIGKILL');
  }
}
