import { SecretRedactor } from '@agent-bridge/bridge';
import type { LogLevel } from '@agent-bridge/config';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { escapeLineSeparators } from './json-line.js';

/**
 * The daemon's logger. Every serialized line passes through the redactor
 * (the built-in rules plus `logging.redact_patterns`) and stays valid JSON,
 * so a secret in a message, a nested field or a stack never reaches the
 * log, whatever path it took; U+2028 and U+2029 are escaped, so every
 * record is one line to every line splitter.
 */
export function createLogger(opts: {
  level: LogLevel;
  format: 'json' | 'pretty';
  redactPatterns: readonly RegExp[];
  destination?: NodeJS.WritableStream;
}): Logger {
  const secrets = new SecretRedactor(opts.redactPatterns);
  const dest =
    opts.format === 'pretty'
      ? pretty({ colorize: true, destination: opts.destination ?? 2 })
      : (opts.destination ?? pino.destination(2));
  return pino(
    {
      level: opts.level,
      base: { svc: 'bridge' },
      hooks: { streamWrite: (line) => escapeLineSeparators(secrets.redactJson(line)) },
    },
    dest,
  );
}
