import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@agent-bridge/harness';

/**
 * The built JavaScript of a workspace entry point (`tsc -b` output), as
 * production runs it: plain `node`, no TypeScript loader (which wraps every
 * named closure at run time and turns on source maps for every stack), so
 * neither the daemon nor its references pay for the way the bench starts
 * them. `npm run bench` builds first (`tsc -b` is incremental, so that is
 * quick); run another way without a build, the bench fails here.
 */
export function built(sourcePath: string): string {
  const out = sourcePath.replace(/\/src\/(.*)\.ts$/, '/dist/$1.js');
  const file = join(REPO_ROOT, out);
  if (!existsSync(file)) throw new Error(`${out} is missing: run npm run build first`);
  return file;
}
