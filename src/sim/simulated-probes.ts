// Health probes on a simulated node answer from the simulation, never from the machine the simulator
// runs on: kubelet's healthz (port 10248) answers while the simulated kubelet process runs, an exec
// probe fails when the machine has no such program (as the agent's spawn would: ENOENT), other probes
// pass unless a rule says otherwise (a service that answers 500 after revision X, say).

import type { ProbeResult, ProbeRunner } from '../agent/apply/health-probe.ts';
import type { HealthProbe } from '../api/types.ts';

/** The kubelet's healthz port, as in `--healthz-port`. */
export const KUBELET_HEALTHZ_PORT = '10248';

export type ProbeRule = (probe: HealthProbe) => ProbeResult | undefined;

export interface SimulatedProbesOptions {
  /** Whether the kubelet process is up. */
  kubeletRunning(): boolean;
  /** Consulted first; undefined falls through to the defaults. */
  rule?: ProbeRule;
  /** Where the machine has a program (undefined: it has none); every program exists without it. */
  locateExecutable?: (program: string) => Promise<string | undefined>;
}

export class SimulatedProbes implements ProbeRunner {
  private readonly options: SimulatedProbesOptions;

  constructor(options: SimulatedProbesOptions) {
    this.options = options;
  }

  async run(probe: HealthProbe): Promise<ProbeResult> {
    const ruled = this.options.rule?.(probe);
    if (ruled) return ruled;
    if (probe.http) {
      const url = probe.http.url;
      let port: string;
      try {
        port = new URL(url).port;
      } catch {
        return { ok: false, detail: `invalid probe URL ${url}` };
      }
      if (port === KUBELET_HEALTHZ_PORT && !this.options.kubeletRunning()) {
        return { ok: false, detail: `GET ${url}: connect ECONNREFUSED (kubelet is not running)` };
      }
      const status = probe.http.expectStatus ?? 200;
      return { ok: true, detail: `GET ${url}: HTTP ${status} (simulated)` };
    }
    if (probe.exec) {
      const program = probe.exec.command[0];
      if (program === undefined) return { ok: false, detail: 'empty probe command' };
      if (this.options.locateExecutable && (await this.options.locateExecutable(program)) === undefined) {
        return { ok: false, detail: `${program}: spawn ${program} ENOENT` };
      }
      return { ok: true, detail: `${program} exited 0 (simulated)` };
    }
    return { ok: false, detail: 'probe has neither http nor exec' };
  }
}
