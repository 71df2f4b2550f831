// Child process of the API server benchmark: holds thousands of watches open over HTTPS (one socket
// each, as thousands of node agents would) and measures, for every event carrying the annotation
// SENT_AT, the time from just before the write was sent to the moment the event was parsed here.
// Driven over IPC by bench/apiserver.bench.ts.

import { Agent, request } from 'node:https';

export const SENT_AT = 'bench.nodeherd.io/sent-at';
/**
 * Where a writer that may not set SENT_AT (a node agent's own identity may write only the agent
 * protocol's annotations) puts its stamp instead: the agent's message annotation, as `sent-at <ms>`.
 */
export const MESSAGE_ANNOTATION = 'nodeherd.io/message';
export const SENT_AT_MESSAGE_PREFIX = 'sent-at ';

export type FleetCommand =
  | { cmd: 'open'; url: string; token: string; caPem: string; paths: string[]; concurrency: number }
  | { cmd: 'collect' }
  | { cmd: 'exit' };

export type FleetReply =
  | { type: 'opened'; ok: number; failed: number; firstError?: string; ms: number }
  | {
      type: 'collected';
      latencies: number[];
      events: number;
      bookmarks: number;
      closed: number;
      errors: number;
    };

const wallMs = () => performance.timeOrigin + performance.now();

let latencies: number[] = [];
let events = 0;
let bookmarks = 0;
let closed = 0;
let errors = 0;

/** Handles one event line of a watch; `last` remembers the last stamp this watch saw. */
function onLine(line: string, last: { sentAt: string | undefined }): void {
  const received = wallMs();
  const event = JSON.parse(line);
  if (event.type === 'BOOKMARK') {
    bookmarks++;
    return;
  }
  events++;
  // Only a new stamp times a write: other writers (e.g. controllers) leave the old one in place.
  const annotations = event.object?.metadata?.annotations;
  const message: unknown = annotations?.[MESSAGE_ANNOTATION];
  const sentAt =
    annotations?.[SENT_AT] ??
    (typeof message === 'string' && message.startsWith(SENT_AT_MESSAGE_PREFIX)
      ? message.slice(SENT_AT_MESSAGE_PREFIX.length)
      : undefined);
  if (sentAt !== undefined && sentAt !== last.sentAt) latencies.push(received - Number(sentAt));
  last.sentAt = sentAt;
}

function openWatch(agent: Agent, url: string, token: string, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, url),
      { method: 'GET', agent, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } },
      (res) => {
        if (res.statusCode !== 200) {
          let body = '';
          res.on('data', (c: Buffer) => {
            body += c.toString();
          });
          res.on('end', () => reject(new Error(`HTTP ${res.statusCode} for ${path}: ${body.slice(0, 200)}`)));
          return;
        }
        let buffered = '';
        const last = { sentAt: undefined as string | undefined };
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          let nl = buffered.indexOf('\n');
          while (nl >= 0) {
            const line = buffered.slice(0, nl);
            buffered = buffered.slice(nl + 1);
            if (line.length > 0) onLine(line, last);
            nl = buffered.indexOf('\n');
          }
        });
        res.on('end', () => closed++);
        res.on('error', () => errors++);
        resolve();
      },
    );
    req.on('error', (err) => {
      errors++;
      reject(err);
    });
    req.end();
  });
}

async function open(command: Extract<FleetCommand, { cmd: 'open' }>): Promise<FleetReply> {
  const started = performance.now();
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, ca: command.caPem });
  let ok = 0;
  let failed = 0;
  let firstError: string | undefined;
  let next = 0;
  await Promise.all(
    Array.from({ length: command.concurrency }, async () => {
      while (next < command.paths.length) {
        const path = command.paths[next++]!;
        try {
          await openWatch(agent, command.url, command.token, path);
          ok++;
        } catch (err) {
          failed++;
          firstError ??= (err as Error).message;
        }
      }
    }),
  );
  return {
    type: 'opened',
    ok,
    failed,
    ...(firstError !== undefined ? { firstError } : {}),
    ms: performance.now() - started,
  };
}

process.on('message', (message: FleetCommand) => {
  const reply = (r: FleetReply) => process.send!(r);
  switch (message.cmd) {
    case 'open':
      open(message).then(reply, (err) => {
        throw err;
      });
      return;
    case 'collect':
      reply({ type: 'collected', latencies, events, bookmarks, closed, errors });
      latencies = [];
      events = 0;
      bookmarks = 0;
      return;
    case 'exit':
      process.exit(0);
  }
});
