// Headless Chromium driven over the Chrome DevTools Protocol, for tests of web pages: Debian's
// `chromium` started with --remote-debugging-port=0 (it prints the port it took), one page target,
// and a small CDP client on Node's global WebSocket. No puppeteer: the tests need navigate, evaluate,
// screenshot, and a viewport, which are four CDP methods.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The chromium binary, or undefined (tests skip, saying so). */
export function chromiumPath(): string | undefined {
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || undefined;
    } catch {}
  }
  return undefined;
}

export const NO_CHROMIUM =
  'chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)';

interface Pending {
  resolve: (value: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  method: string;
}

export class ChromiumPage {
  private readonly socket: WebSocket;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Uncaught exceptions in the page, and errors it logged (a script refused by CSP, a failed load). */
  readonly errors: string[] = [];

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as {
        id?: number;
        method?: string;
        params?: Record<string, any>;
        result?: Record<string, unknown>;
        error?: { message: string };
      };
      if (message.method === 'Runtime.exceptionThrown') {
        const details = message.params?.exceptionDetails;
        this.errors.push(details?.exception?.description ?? details?.text ?? 'exception');
      }
      if (message.method === 'Log.entryAdded' && message.params?.entry?.level === 'error') {
        this.errors.push(`${message.params.entry.text} ${message.params.entry.url ?? ''}`.trim());
      }
      if (message.id === undefined) return;
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if (message.error) waiter.reject(new Error(`${waiter.method}: ${message.error.message}`));
      else waiter.resolve(message.result ?? {});
    });
  }

  static async connect(url: string): Promise<ChromiumPage> {
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener('open', () => resolve(), { once: true });
      socket.addEventListener('error', () => reject(new Error(`cannot connect to ${url}`)), { once: true });
    });
    return new ChromiumPage(socket);
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Evaluates `expression` in the page; returns its value (awaited when it is a promise). */
  async evaluate<T>(expression: string): Promise<T> {
    const result = (await this.send('Runtime.evaluate', {
      expression,
      returnByValue: true,
      awaitPromise: true,
    })) as {
      result: { value?: T };
      exceptionDetails?: { text: string; exception?: { description?: string } };
    };
    if (result.exceptionDetails) {
      throw new Error(
        `in the page: ${result.exceptionDetails.exception?.description ?? result.exceptionDetails.text}`,
      );
    }
    return result.result.value as T;
  }

  /** Polls `expression` until it is truthy; returns its value. */
  async waitFor<T>(what: string, expression: string, timeoutMs = 60_000): Promise<T> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const value = await this.evaluate<T>(expression);
      if (value) return value;
      if (performance.now() > deadline) throw new Error(`timed out waiting in the page for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async screenshot(): Promise<Buffer> {
    const { data } = (await this.send('Page.captureScreenshot', {
      format: 'png',
      captureBeyondViewport: true,
    })) as { data: string };
    return Buffer.from(data, 'base64');
  }

  close(): void {
    this.socket.close();
  }
}

export interface Chromium {
  page: ChromiumPage;
  stop(): Promise<void>;
}

/** Starts headless chromium (as root it needs --no-sandbox) with one blank page. */
export async function launchChromium(
  binary: string,
  viewport = { width: 1280, height: 900 },
): Promise<Chromium> {
  const profile = mkdtempSync(join(tmpdir(), 'nodeherd-chromium-'));
  const child: ChildProcess = spawn(
    binary,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      `--window-size=${viewport.width},${viewport.height}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    }
    // Chromium's helper processes may still write into the profile for a moment after the browser
    // exits (CI saw ENOTEMPTY): rm retries.
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  };
  try {
    const browserUrl = await new Promise<string>((resolve, reject) => {
      let text = '';
      const timer = setTimeout(
        () => reject(new Error(`chromium printed no DevTools address: ${text}`)),
        30_000,
      );
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => {
        text += chunk;
        const match = /DevTools listening on (ws:\/\/\S+)/.exec(text);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`chromium exited (${code}): ${text}`));
      });
    });
    const origin = new URL(browserUrl).host;
    const targets = (await (await fetch(`http://${origin}/json/list`)).json()) as {
      type: string;
      webSocketDebuggerUrl: string;
    }[];
    const target = targets.find((t) => t.type === 'page');
    if (!target) throw new Error('chromium has no page target');
    const page = await ChromiumPage.connect(target.webSocketDebuggerUrl);
    await page.send('Page.enable');
    await page.send('Runtime.enable');
    await page.send('Log.enable');
    await page.send('Emulation.setDeviceMetricsOverride', {
      width: viewport.width,
      height: viewport.height,
      deviceScaleFactor: 1,
      mobile: false,
    });
    return {
      page,
      stop: async () => {
        page.close();
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
