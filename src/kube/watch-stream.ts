// One watch request: reads the NDJSON event stream line by line and reports how it ended. An ERROR
// event carrying 410 (the resourceVersion is too old) ends it as 'expired', telling the informer to
// re-list; silence longer than inactivityMs ends it as 'inactive' (a half-open connection would
// otherwise wait forever: the server sends BOOKMARKs regularly to idle watches that ask for them).

import type http from 'node:http';
import type https from 'node:https';
import { createInterface } from 'node:readline';
import { isKubeError, type KubeError, kubeErrorFromResponse } from './kube-error.ts';
import type { KubeObject, WatchEventType } from './types.ts';

export interface WatchHandlers<T extends KubeObject> {
  onEvent(type: WatchEventType, object: T): void;
  /** Silence after which the connection counts as dead; default 3 minutes. */
  inactivityMs?: number;
}

export type WatchEndReason = 'closed' | 'aborted' | 'inactive' | 'expired' | 'failed';

export interface WatchEnd {
  reason: WatchEndReason;
  /** For 'failed' (and 'expired' when the server refused with 410). */
  error?: Error;
  /** Events received, bookmarks included. */
  events: number;
}

export interface WatchHandle {
  readonly ended: Promise<WatchEnd>;
  abort(): void;
}

interface OpenWatchOptions<T extends KubeObject> {
  url: URL;
  options: https.RequestOptions;
  handlers: WatchHandlers<T>;
  transport: typeof http | typeof https;
}

export function openWatch<T extends KubeObject>(open: OpenWatchOptions<T>): WatchHandle {
  const inactivityMs = open.handlers.inactivityMs ?? 180_000;
  let finish!: (end: WatchEnd) => void;
  const ended = new Promise<WatchEnd>((resolve) => {
    finish = resolve;
  });
  let events = 0;
  let settled = false;
  let timer: NodeJS.Timeout | undefined;
  let req: http.ClientRequest | undefined;

  const end = (reason: WatchEndReason, error?: Error) => {
    if (settled) return;
    settled = true;
    if (timer) clearTimeout(timer);
    req?.destroy();
    finish({ reason, ...(error ? { error } : {}), events });
  };
  const arm = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => end('inactive'), inactivityMs);
    timer.unref();
  };

  arm();
  req = open.transport.request(
    open.url,
    { ...open.options, method: 'GET', headers: { ...open.options.headers, Accept: 'application/json' } },
    (res) => {
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const error: KubeError = kubeErrorFromResponse(
            status,
            Buffer.concat(chunks).toString('utf8'),
            `WATCH ${open.url.pathname}`,
          );
          end(isKubeError(error, 410) ? 'expired' : 'failed', error);
        });
        res.on('error', (err) => end('failed', err));
        return;
      }
      res.on('data', arm);
      res.on('error', (err) => end('failed', err));
      const lines = createInterface({ input: res, crlfDelay: Number.POSITIVE_INFINITY });
      lines.on('line', (line) => {
        if (settled || line.trim() === '') return;
        let event: { type?: WatchEventType; object?: T & { code?: number } };
        try {
          event = JSON.parse(line);
        } catch (err) {
          end('failed', new Error(`watch ${open.url.pathname}: unparsable event: ${String(err)}`));
          return;
        }
        events++;
        if (event.type === 'ERROR') {
          const code = event.object?.code;
          end(
            code === 410 ? 'expired' : 'failed',
            new Error(`watch ${open.url.pathname}: ${JSON.stringify(event.object)}`),
          );
          return;
        }
        if (!event.type || !event.object) return;
        open.handlers.onEvent(event.type, event.object);
      });
      lines.on('error', (err) => end('failed', err));
      lines.on('close', () => end('closed'));
    },
  );
  req.on('error', (err) => end(settled ? 'aborted' : 'failed', err));
  req.end();
  return {
    ended,
    abort: () => end('aborted'),
  };
}
