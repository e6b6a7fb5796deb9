import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SECURITY_HEADERS } from './http-replies.js';

/** Where `npm run build` (scripts/build-console.mjs) puts the page: the same from src/ and dist/. */
export const ASSETS_DIR = fileURLToPath(new URL('../../dist/console-assets/', import.meta.url));

const FILES: Readonly<Record<string, [string, string]>> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/app.css': ['app.css', 'text/css; charset=utf-8'],
};

/** True when the built page is there; `bridgectl ui` says how to build it otherwise. */
export const assetsBuilt = (dir: string): boolean =>
  Object.values(FILES).every(([file]) => existsSync(join(dir, file)));

/** Serves one of the page's files; false when `path` is none of them. */
export async function serveAsset(dir: string, path: string, res: ServerResponse): Promise<boolean> {
  const known = FILES[path];
  if (!known) return false;
  const body = await readFile(join(dir, known[0]));
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': known[1],
    'content-length': body.length,
  });
  res.end(body);
  return true;
}
