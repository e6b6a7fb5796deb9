import type { Server } from 'node:net';
import type { Logger } from 'pino';

/**
 * Binds `server` to `listen` (host:port, [v6]:port; port 0 picks one) and
 * resolves with the bound port. `key` names the config key in errors. Later
 * server errors are logged as `what`, not thrown.
 */
export async function bind(
  server: Server,
  listen: string,
  key: string,
  logger: Logger,
  what: string,
): Promise<number> {
  const m = /^\[?([^\]]*?)\]?:(\d+)$/.exec(listen);
  if (!m) throw new Error(`${key}: expected host:port, got "${listen}"`);
  const port = Number(m[2]);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, m[1], () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => logger.error({ err }, `${what} error`));
  const address = server.address();
  return typeof address === 'object' && address ? address.port : port;
}
