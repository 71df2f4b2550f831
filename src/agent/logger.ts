// The agent's logger: one JSON object per line, nothing else, behind nodeherd's logger interface
// (pino's argument order: src/util/logger.ts). pino itself would cost the agent ~7 MB of RSS
// (measured with node 24.21: 53.1 → 59.9 MB after importing it), a seventh of its 50 MB budget, for
// features it does not use. Fields are the caller's: never pass file contents or tokens.

import type { LogFields, Logger } from '../util/logger.ts';
import { isoTime } from '../util/utc-time.ts';

export type { LogFields, Logger } from '../util/logger.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface JsonLoggerOptions {
  /** Lowest level written (default info). */
  level?: LogLevel;
  /** Where lines go (default: stderr, synchronously for files and pipes). */
  write?: (line: string) => void;
  /** Epoch milliseconds (default Date.now). */
  now?: () => number;
}

export class JsonLogger implements Logger {
  private readonly minimum: number;
  private readonly write: (line: string) => void;
  private readonly now: () => number;
  private readonly fields: LogFields;

  constructor(options: JsonLoggerOptions = {}, fields: LogFields = {}) {
    this.minimum = LEVEL_RANK[options.level ?? 'info'];
    this.write = options.write ?? ((line) => process.stderr.write(line));
    this.now = options.now ?? Date.now;
    this.fields = fields;
  }

  debug(fieldsOrMessage: LogFields | string, message?: string): void {
    this.log('debug', fieldsOrMessage, message);
  }

  info(fieldsOrMessage: LogFields | string, message?: string): void {
    this.log('info', fieldsOrMessage, message);
  }

  warn(fieldsOrMessage: LogFields | string, message?: string): void {
    this.log('warn', fieldsOrMessage, message);
  }

  error(fieldsOrMessage: LogFields | string, message?: string): void {
    this.log('error', fieldsOrMessage, message);
  }

  child(fields: LogFields): Logger {
    return new JsonLogger(
      { level: levelOf(this.minimum), write: this.write, now: this.now },
      { ...this.fields, ...fields },
    );
  }

  private log(level: LogLevel, fieldsOrMessage: LogFields | string, message: string | undefined): void {
    if (LEVEL_RANK[level] < this.minimum) return;
    const fields = typeof fieldsOrMessage === 'string' ? undefined : fieldsOrMessage;
    const record = {
      time: isoTime(this.now()),
      level,
      msg: typeof fieldsOrMessage === 'string' ? fieldsOrMessage : (message ?? ''),
      ...this.fields,
      ...fields,
    };
    this.write(`${JSON.stringify(record, errorsAsText)}\n`);
  }
}

/** Drops everything: the default for thousands of simulated agents in one process. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLogger;
  },
};

export function isLogLevel(value: string): value is LogLevel {
  return Object.hasOwn(LEVEL_RANK, value);
}

function levelOf(rank: number): LogLevel {
  return (Object.keys(LEVEL_RANK) as LogLevel[]).find((level) => LEVEL_RANK[level] === rank) ?? 'info';
}

// Error objects serialise as {} by default; their message is what a reader needs.
function errorsAsText(_key: string, value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}
