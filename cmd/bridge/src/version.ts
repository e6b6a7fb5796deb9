import { readFileSync } from 'node:fs';

/** The daemon's version, from this package's package.json. */
export const VERSION: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).version;
