// Starts a real embedded API server in a temporary data dir for integration tests, and drives it with
// the same tools users have: kubectl and the official @kubernetes/client-node.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { ApiServer, type ApiServerOptions } from '../../src/apiserver/api-server.ts';
import { adminKubeconfigPath } from '../../src/apiserver/auth/credentials.ts';
import { KubeClient } from '../../src/kube/kube-client.ts';
import { loadKubeConfig } from '../../src/kube/kube-config.ts';
import { type NodeherdProfileOptions, nodeherdProfile } from '../../src/profile/nodeherd-profile.ts';

export interface LocalApiServer {
  server: ApiServer;
  dataDir: string;
  kubeconfigPath: string;
  kubeConfig(): KubeConfig;
  kubectl(
    args: string[],
    options?: { input?: string; kubeconfig?: string; timeoutMs?: number; binary?: string },
  ): Promise<KubectlResult>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function kubectl(
  kubeconfigPath: string,
  args: string[],
  options: { input?: string; timeoutMs?: number; binary?: string } = {},
): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(
      options.binary ?? 'kubectl',
      args,
      {
        env: { ...process.env, KUBECONFIG: kubeconfigPath, HOME: join(kubeconfigPath, '..') },
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : 1
          : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Server options, and nodeherd's profile options when no profile is given (the default is nodeherd's). */
export type LocalApiServerOptions = Partial<ApiServerOptions> & NodeherdProfileOptions;

export async function startLocalApiServer(given: LocalApiServerOptions = {}): Promise<LocalApiServer> {
  const { artefactDirectory, ...serverOptions } = given;
  const options: Partial<ApiServerOptions> & Pick<ApiServerOptions, 'profile'> = {
    ...serverOptions,
    profile: given.profile ?? nodeherdProfile(artefactDirectory ? { artefactDirectory } : {}),
  };
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'nodeherd-apiserver-'));
  const logger = options.logger ?? pino({ level: process.env.NODEHERD_TEST_LOG ?? 'silent' });
  const start = () => ApiServer.start({ port: 0, ...options, dataDir, logger });
  let server = await start();
  const kubeconfigPath = adminKubeconfigPath(dataDir);
  const local: LocalApiServer = {
    get server() {
      return server;
    },
    dataDir,
    kubeconfigPath,
    kubeConfig() {
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfigPath);
      return kc;
    },
    kubectl: (args, opts = {}) => kubectl(opts.kubeconfig ?? kubeconfigPath, args, opts),
    async restart() {
      const port = Number(new URL(server.url).port);
      await server.stop();
      server = await ApiServer.start({ ...options, port, dataDir, logger });
    },
    async stop() {
      await server.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return local;
}

/** A client of the server as its admin, through the admin kubeconfig as the CLI reads it; close it when done. */
export function adminKubeClient(local: LocalApiServer): KubeClient {
  return new KubeClient(loadKubeConfig({ kubeconfig: local.kubeconfigPath }));
}
