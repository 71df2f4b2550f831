#!/usr/bin/env node

// nodeherd-agent: runs on every node as a systemd service (Restart=always). See `--help`.
//
// Test affordance: NODEHERD_AGENT_CRASH_AT="<action index>:<before|executed|journaled>" makes the
// process SIGKILL itself at that point of an apply, so the crash test can hit exact steps.

import { type AgentConfig, ConfigError, parseAgentConfig, usage } from '../src/agent/agent-config.ts';
import type { ApplyHooks } from '../src/agent/apply/apply-runner.ts';
import {
  alwaysRollBack,
  neverRollBack,
  poolRollbackPolicy,
} from '../src/agent/apply/pool-rollback-policy.ts';
import { createBackends } from '../src/agent/backends.ts';
import { AgentHttpServer } from '../src/agent/http/agent-http-server.ts';
import { mountAgentLocalApis } from '../src/agent/http/agent-local-apis.ts';
import { ensureOwnerToken } from '../src/agent/http/owner-token.ts';
import { JsonLogger, type Logger } from '../src/agent/logger.ts';
import { NodeAgent } from '../src/agent/node-agent.ts';
import { trustOnlyNamedCas } from '../src/agent/tls-trust.ts';
import { LightKubeClient } from '../src/kube/light/light-kube-client.ts';
import { isoTime } from '../src/util/utc-time.ts';

/** How long the agent waits to be killed by a reboot it asked for. */
const REBOOT_WAIT_MS = 10 * 60_000;
/** How long a stop waits for the step in progress before leaving anyway. */
const SHUTDOWN_GRACE_MS = 5000;
const METRICS_RETRY_MS = 30_000;

function crashHooks(spec: string | undefined): ApplyHooks | undefined {
  if (!spec) return undefined;
  const [index, when] = spec.split(':');
  const at = Number(index);
  const die = (i: number) => {
    if (i === at) process.kill(process.pid, 'SIGKILL');
  };
  if (when === 'before') return { beforeAction: (_id, i) => die(i) };
  if (when === 'executed') return { afterExecute: (_id, i) => die(i) };
  return { afterJournal: (_id, i) => die(i) };
}

async function main(config: AgentConfig): Promise<void> {
  // Before any TLS context: the agent's connections name their CA (src/agent/tls-trust.ts).
  trustOnlyNamedCas();
  const logger = new JsonLogger({ level: config.logLevel });
  const tuning = { userAgent: `nodeherd-agent/${config.nodeName}` };
  const client = config.inCluster
    ? LightKubeClient.inCluster(tuning)
    : LightKubeClient.fromKubeconfig(config.kubeconfig, tuning);
  const backends = await createBackends(config);
  const rollbackPolicy =
    config.rollback === 'always'
      ? alwaysRollBack
      : config.rollback === 'never'
        ? neverRollBack
        : poolRollbackPolicy(client, logger);
  const hooks = crashHooks(process.env.NODEHERD_AGENT_CRASH_AT);
  const agent = new NodeAgent({
    nodeName: config.nodeName,
    client,
    stateDir: config.stateDir,
    executors: backends,
    packageManager: backends.packageManager,
    host: backends.host,
    rollbackPolicy,
    ...(backends.probes ? { probes: backends.probes } : {}),
    selfUnit: config.selfUnit,
    logger,
    unitTimeoutMs: config.unitTimeoutMs,
    drift: {
      intervalMs: config.driftIntervalMs,
      // inotify where the files are on this machine's filesystem (the simulated backend keeps them in memory).
      ...(config.backend !== 'simulated' ? { watchRoot: config.rootDir } : {}),
    },
    reboots: {
      intervalMs: config.rebootCheckIntervalMs,
      ...(backends.commands ? { commands: backends.commands } : {}),
    },
    watch: {
      ...(config.bookmarkIntervalMs !== undefined ? { bookmarkIntervalMs: config.bookmarkIntervalMs } : {}),
      ...(config.watchTimeoutSeconds !== undefined
        ? { watchTimeoutSeconds: config.watchTimeoutSeconds }
        : {}),
    },
    ...(hooks ? { hooks } : {}),
    onHostRestart: async (kind) => {
      if (config.exitOnRestart) {
        logger.info({ kind }, 'exiting for the requested restart');
        process.exit(0);
      }
      // A real reboot ends this process; a self-restart that returned did not concern this process.
      if (kind !== 'reboot' || !backends.realHost) return 'continue';
      // Still alive long after asking (an inhibitor, a hung shutdown): exit, so systemd starts the
      // agent again, which sees the same boot id and asks again.
      setTimeout(() => {
        logger.error({}, 'the requested reboot has not happened; exiting to ask again');
        process.exit(1);
      }, REBOOT_WAIT_MS).unref();
      return 'halt';
    },
  });
  const ownerToken = config.localApiTokenFile ? await ensureOwnerToken(config.localApiTokenFile) : undefined;
  const http = config.metricsAddress
    ? new AgentHttpServer(agent, { ...config.metricsAddress, ...(ownerToken ? { ownerToken } : {}) })
    : undefined;
  // The node's local APIs beside /healthz and /metrics: the same set `nodeherd up` serves per node.
  if (http) mountAgentLocalApis(http, { updates: agent.updates, client, nodeName: config.nodeName });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    // An apply in progress may be the agent's own `systemctl restart`, which waits for this very
    // process to stop: waiting for the apply would deadlock until systemd's stop timeout. Every
    // step is journaled, so leaving mid-apply is safe; the next process resumes.
    const grace = new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref());
    await Promise.race([Promise.all([agent.stop(), http?.close()]), grace]);
    client.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  await agent.start();
  if (http) void serveWhenPossible(http, logger);
}

/**
 * A busy metrics port must not stop the node from being managed (exiting would make systemd restart
 * the agent forever): keep reconciling, say why, and try the port again every 30 s.
 */
async function serveWhenPossible(http: AgentHttpServer, logger: Logger): Promise<void> {
  for (;;) {
    try {
      logger.info(await http.listen(), 'serving /healthz and /metrics');
      return;
    } catch (error) {
      logger.error(
        {
          error: (error as Error).message,
        },
        'cannot serve /healthz and /metrics; still managing the node, retrying in 30 s',
      );
      await new Promise((resolve) => setTimeout(resolve, METRICS_RETRY_MS));
    }
  }
}

let config: AgentConfig | undefined;
try {
  config = parseAgentConfig(process.argv.slice(2), process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`nodeherd-agent: ${error.message}\n\n${usage()}`);
  process.exit(2);
}
if (!config) {
  process.stdout.write(usage());
} else {
  main(config).catch((error: Error) => {
    process.stderr.write(
      `${JSON.stringify({ time: isoTime(), level: 'error', msg: 'agent failed', error: error.message })}\n`,
    );
    process.exit(1);
  });
}
