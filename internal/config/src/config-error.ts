import type { ConfigProblem } from './private/node-reader.js';

/**
 * The config file is invalid; `problems` lists every mistake with its path
 * and line. What caused it (a read error, a provider's own refusal) is
 * kept as `cause`.
 */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: ConfigProblem[],
    options?: ErrorOptions,
  ) {
    super(
      `invalid config ${file}:\n${problems
        .map((p) => `  ${file}${p.line ? `:${p.line}` : ''}: ${p.path}: ${p.message}`)
        .join('\n')}`,
      options,
    );
    this.name = 'ConfigError';
  }
}
