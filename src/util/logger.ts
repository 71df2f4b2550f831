// The one logger interface of nodeherd, in pino's argument order: `info(fields, message)` or
// `info(message)`. pino's loggers (controller, API server, `nodeherd up`) satisfy it as they are; the
// agent implements it without pino (src/agent/logger.ts), and src/kube types against it, so neither
// loads pino to log. Fields are the caller's: never pass file contents or tokens.

export type LogFields = Record<string, unknown>;

export interface LogFn {
  (fields: LogFields, message?: string): void;
  (message: string): void;
}

export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}
