import { createRedactor } from '@agent-bridge/bridge';
import type { LogLevel } from '@agent-bridge/config';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

/**
 * The daemon's logger. Every serialized line passes through the redactor
 * (configured patterns plus private keys, bearer tokens and JWT-shaped
 * strings), so a secret in a message, a nested field or a stack never
 * reaches the log, whatever path it took.
 */
export function createLogger(opts: {
  level: LogLevel;
  format: 'json' | 'pretty';
  redactPatterns: readonly RegExp[];
  destination?: NodeJS.WritableStream;
}): Logger {
  const redact = createRedactor(opts.redactPatterns);
  const dest =
    opts.format === 'pretty'
      ? pretty({ colorize: true, destination: opts.destination ?? 2 })
      : (opts.destination ?? pino.destination(2));
  return pino(
    {
      level: opts.level,
      base: { svc: 'bridge' },
      hooks: { streamWrite: (line) => redact(line) },
    },
    dest,
  );
}
