// The agent's logger: one JSON object per line, nothing else. pino would cost the agent ~7 MB of RSS
// (measured with node 24.21: 53.1 → 59.9 MB after importing it), a seventh of its 50 MB budget, for
// features it does not use. Fields are the caller's: never pass file contents or tokens.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

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

  debug(message: string, fields?: LogFields): void {
    this.log('debug', message, fields);
  }

  info(message: string, fields?: LogFields): void {
    this.log('info', message, fields);
  }

  warn(message: string, fields?: LogFields): void {
    this.log('warn', message, fields);
  }

  error(message: string, fields?: LogFields): void {
    this.log('error', message, fields);
  }

  child(fields: LogFields): Logger {
    return new JsonLogger(
      { level: levelOf(this.minimum), write: this.write, now: this.now },
      { ...this.fields, ...fields },
    );
  }

  private log(level: LogLevel, message: string, fields: LogFields | undefined): void {
    if (LEVEL_RANK[level] < this.minimum) return;
    const record = {
      time: new Date(this.now()).toISOString(),
      level,
      msg: message,
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
