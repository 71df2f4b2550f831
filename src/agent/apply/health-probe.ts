// Health probes a unit may declare: an HTTP GET that must answer with the expected status (any 2xx
// by default), or a command that must exit 0. Like kubelet's probes, HTTPS certificates are not
// verified: the probe asks "does it answer", on the node itself.

import type { HealthProbe } from '../../api/types.ts';

export interface ProbeResult {
  ok: boolean;
  /** Why it failed, or what it saw. */
  detail: string;
  /** An exec probe's output (stderr, then stdout), for the failure excerpt. */
  output?: string;
}

export interface ProbeRunner {
  /** One attempt, bounded by timeoutMs. */
  run(probe: HealthProbe, timeoutMs: number): Promise<ProbeResult>;
}

type HttpModule = typeof import('node:http');
type ChildProcessModule = typeof import('node:child_process');

// getBuiltinModule, not an ESM import: an ESM namespace of node:http touches its lazy WebSocket
// getters, which load undici (+15 MB RSS measured with node 24.21).
function httpModule(protocol: string): HttpModule {
  return process.getBuiltinModule(protocol === 'https:' ? 'node:https' : 'node:http') as HttpModule;
}

export class NodeProbeRunner implements ProbeRunner {
  /** Prepended to exec probe commands, e.g. nsenter into the host's namespaces (host-namespaces.ts). */
  private readonly commandPrefix: readonly string[];

  constructor(options: { commandPrefix?: readonly string[] } = {}) {
    this.commandPrefix = options.commandPrefix ?? [];
  }

  run(probe: HealthProbe, timeoutMs: number): Promise<ProbeResult> {
    // Callers pass what is left of a deadline (fractional ms); child_process refuses non-integer timeouts.
    timeoutMs = Math.max(1, Math.ceil(timeoutMs));
    if (probe.http) return httpProbe(probe.http.url, probe.http.expectStatus, timeoutMs);
    if (probe.exec) return execProbe(probe.exec.command, this.commandPrefix, timeoutMs);
    return Promise.resolve({ ok: false, detail: 'probe has neither http nor exec' });
  }
}

function httpProbe(url: string, expectStatus: number | undefined, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve({ ok: false, detail: `invalid probe URL ${url}` });
      return;
    }
    const request = httpModule(target.protocol).get(
      target,
      { timeout: timeoutMs, rejectUnauthorized: false, agent: false } as object,
      (response) => {
        response.resume();
        const status = response.statusCode ?? 0;
        const ok = expectStatus === undefined ? status >= 200 && status < 300 : status === expectStatus;
        resolve({
          ok,
          detail: `GET ${url}: HTTP ${status}${ok ? '' : `, expected ${expectStatus ?? '2xx'}`}`,
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', (error) => resolve({ ok: false, detail: `GET ${url}: ${error.message}` }));
  });
}

function execProbe(
  probeCommand: string[],
  prefix: readonly string[],
  timeoutMs: number,
): Promise<ProbeResult> {
  if (probeCommand[0] === undefined) return Promise.resolve({ ok: false, detail: 'empty probe command' });
  const name = probeCommand[0];
  const [file, ...args] = [...prefix, ...probeCommand] as [string, ...string[]];
  return new Promise((resolve) => {
    // Loaded on first use: most nodes never declare an exec probe.
    const { execFile } = process.getBuiltinModule('node:child_process') as ChildProcessModule;
    try {
      execFile(file, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 }, (error, stdout, stderr) => {
        if (!error) resolve({ ok: true, detail: `${name} exited 0` });
        else {
          const output = [String(stderr ?? ''), String(stdout ?? '')].filter((t) => t.trim()).join('\n');
          resolve({
            ok: false,
            detail: `${name}: ${error.message.split('\n')[0]}`,
            ...(output ? { output } : {}),
          });
        }
      });
    } catch (error) {
      // Invalid arguments throw instead of calling back: a failed probe, not a failed apply.
      resolve({ ok: false, detail: `${name}: ${(error as Error).message}` });
    }
  });
}
