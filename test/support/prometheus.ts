// A real Prometheus for tests (Debian's `prometheus` package): started on a free loopback port with
// a temporary config and storage, scraping targets the test names every second, optionally with
// alerting rules (their firing alerts show at /api/v1/alerts without an Alertmanager). Plus a tiny
// exporter whose values the test sets. Tests skip with `prometheusMissing` as the reason when the
// binary is absent.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './eventually.ts';

const BINARY = process.env.NODEHERD_TEST_PROMETHEUS ?? 'prometheus';

/** Why Prometheus tests skip, or false when they can run. */
export const prometheusMissing: string | false =
  spawnSync(BINARY, ['--version'], { encoding: 'utf8' }).status === 0
    ? false
    : `${BINARY} is not installed (Debian package prometheus; .ci/run installs it)`;

/** A free TCP port on 127.0.0.1 (free when asked; the caller binds it right away). */
/**
 * A loopback port that is free now, for a process started later. Drawn from below the kernel's
 * ephemeral range (32768–60999): a port the kernel hands out for listen(0) is soon handed to another
 * test's listen(0), which then takes it before the process this port was meant for binds it.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return port;
    }
    if (attempt > 100) throw new Error('no free loopback port below the ephemeral range');
  }
}

/** An HTTP endpoint serving /metrics in the text format, with gauge values the test sets. */
export class TestExporter {
  private readonly server: Server;
  private readonly values = new Map<string, number>();
  address = '';

  private constructor() {
    this.server = createServer((req, res) => {
      if (req.url !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      const lines: string[] = [];
      for (const [name, value] of this.values) lines.push(`# TYPE ${name} gauge`, `${name} ${value}`);
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(`${lines.join('\n')}\n`);
    });
  }

  static async start(): Promise<TestExporter> {
    const exporter = new TestExporter();
    await new Promise<void>((resolve) => exporter.server.listen(0, '127.0.0.1', resolve));
    exporter.address = `127.0.0.1:${(exporter.server.address() as AddressInfo).port}`;
    return exporter;
  }

  set(name: string, value: number): void {
    this.values.set(name, value);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export interface PrometheusOptions {
  /** host:port of each target scraped (job "test", or `jobName`). */
  targets: string[];
  jobName?: string;
  /** Scrape with `Authorization: Bearer <this file's contents>` (read again at every scrape). */
  bearerTokenFile?: string;
  /** Contents of a rule file (YAML), e.g. alerting rules with `for: 0s`. */
  rules?: string;
  scrapeIntervalSeconds?: number;
}

export class TestPrometheus {
  readonly url: string;
  private readonly child: ChildProcess;
  private readonly dir: string;
  private exited: Promise<void>;
  output = '';

  private constructor(url: string, child: ChildProcess, dir: string) {
    this.url = url;
    this.child = child;
    this.dir = dir;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-20_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  static async start(options: PrometheusOptions): Promise<TestPrometheus> {
    const dir = mkdtempSync(join(tmpdir(), 'nodeherd-prometheus-'));
    const interval = `${options.scrapeIntervalSeconds ?? 1}s`;
    const config = [
      'global:',
      `  scrape_interval: ${interval}`,
      `  evaluation_interval: ${interval}`,
      ...(options.rules ? ['rule_files:', `  - ${JSON.stringify(join(dir, 'rules.yml'))}`] : []),
      'scrape_configs:',
      `  - job_name: ${JSON.stringify(options.jobName ?? 'test')}`,
      ...(options.bearerTokenFile
        ? ['    authorization:', `      credentials_file: ${JSON.stringify(options.bearerTokenFile)}`]
        : []),
      '    static_configs:',
      `      - targets: ${JSON.stringify(options.targets)}`,
      '',
    ].join('\n');
    writeFileSync(join(dir, 'prometheus.yml'), config);
    if (options.rules) writeFileSync(join(dir, 'rules.yml'), options.rules);
    const port = await freePort();
    const child = spawn(
      BINARY,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const prometheus = new TestPrometheus(`http://127.0.0.1:${port}`, child, dir);
    try {
      await eventually(
        'Prometheus ready',
        async () => {
          if (child.exitCode !== null) throw new Error(`prometheus exited: ${prometheus.output}`);
          const res = await fetch(`${prometheus.url}/-/ready`);
          return res.status === 200;
        },
        30_000,
        100,
      );
    } catch (err) {
      await prometheus.stop();
      throw err;
    }
    return prometheus;
  }

  /** Waits until an instant query returns a sample with this value (the scrape caught up). */
  async waitForValue(query: string, value: number, timeoutMs = 20_000): Promise<void> {
    await eventually(
      `${query} == ${value} in Prometheus`,
      async () => {
        const res = await fetch(`${this.url}/api/v1/query?query=${encodeURIComponent(query)}`);
        const body = (await res.json()) as { data?: { result?: { value: [number, string] }[] } };
        return body.data?.result?.some((s) => Number(s.value[1]) === value) === true;
      },
      timeoutMs,
      200,
    );
  }

  /** Waits until an alert with this name is in the given state (or gone, for 'inactive'). */
  async waitForAlert(
    name: string,
    state: 'firing' | 'pending' | 'inactive',
    timeoutMs = 20_000,
  ): Promise<void> {
    await eventually(
      `alert ${name} ${state}`,
      async () => {
        const res = await fetch(`${this.url}/api/v1/alerts`);
        const body = (await res.json()) as {
          data?: { alerts?: { labels: { alertname: string }; state: string }[] };
        };
        const alert = body.data?.alerts?.find((a) => a.labels.alertname === name);
        return state === 'inactive' ? alert === undefined : alert?.state === state;
      },
      timeoutMs,
      200,
    );
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
      await this.exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
