import { readFileSync } from 'node:fs';
import type { PemSource } from '../options.js';

/** The PEM text of `source`: the material itself, or the file it names. */
export function readPem(source: PemSource, what: string): string {
  if (Buffer.isBuffer(source)) return source.toString('utf8');
  if (typeof source !== 'string' || source.length === 0) {
    throw new TypeError(`${what}: give the PEM or the path of a file holding it`);
  }
  if (source.includes('-----BEGIN ')) return source;
  let text: string;
  try {
    text = readFileSync(source, 'utf8');
  } catch (err) {
    throw new TypeError(`${what}: cannot read ${source} (${(err as NodeJS.ErrnoException).code})`, {
      cause: err,
    });
  }
  if (!text.includes('-----BEGIN ')) throw new TypeError(`${what}: ${source} holds no PEM`);
  return text;
}
