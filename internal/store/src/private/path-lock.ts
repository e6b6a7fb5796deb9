import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/** Another process holds the store's directory. */
export class StoreLockedError extends Error {
  constructor(readonly path: string) {
    super(
      `the session store ${path} is in use by another daemon (one daemon per store: give each its own storage.path)`,
    );
    this.name = 'StoreLockedError';
  }
}

/** A held lock; `release` lets the next process have the path. */
export interface PathLock {
  release(): Promise<void>;
}

/**
 * Makes sure one process at a time uses `dir`. LMDB lets several processes
 * write one environment, so the daemon needs its own lock: a Linux
 * abstract-namespace socket named after the directory's real path. The
 * kernel frees it when the process dies, however it dies, so there is no
 * stale lock file to clean up and no pid to mistake for another process.
 */
export function lockPath(dir: string): Promise<PathLock> {
  const real = realpathSync(dir);
  const name = `\0agent-bridge-store-${createHash('sha256').update(real).digest('hex').slice(0, 40)}`;
  const server: Server = createServer((socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'EADDRINUSE' ? new StoreLockedError(real) : err);
    });
    server.listen(name, () => {
      // The lock must not keep the daemon alive on its own.
      server.unref();
      resolve({
        release: () =>
          new Promise<void>((done) => {
            server.close(() => done());
          }),
      });
    });
  });
}
