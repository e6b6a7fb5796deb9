import type { Logger } from 'pino';
import type { AuditLog } from '../audit-log.js';
import type { RunningDaemon } from '../daemon.js';
import type { OrphanGuard } from '../orphan-guard.js';
import type { OpenedStore } from './open-store.js';

/**
 * Serves until SIGTERM or SIGINT, then stops the daemon gracefully and
 * resolves with the exit code (0, or 1 when the shutdown failed). SIGHUP
 * reopens the audit log and reloads the TLS files.
 */
export function untilStopped(
  daemon: RunningDaemon,
  logger: Logger,
  { auditLog, orphans, store }: { auditLog: AuditLog; orphans: OrphanGuard; store: OpenedStore },
): Promise<number> {
  return new Promise<number>((done) => {
    const stop = (sig: string) => {
      logger.info({ signal: sig }, 'signal received');
      daemon
        .stop()
        .then(
          () => 0,
          (err) => {
            logger.error({ err }, 'shutdown failed');
            return 1;
          },
        )
        // The store closes after the sessions' last events are committed.
        .then((code) =>
          store.close().then(
            () => code,
            (err: unknown) => {
              logger.error({ err }, 'cannot close the session store');
              return 1;
            },
          ),
        )
        .then((code) => {
          orphans.close();
          auditLog.close();
          done(code);
        });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    process.on('SIGHUP', () => {
      try {
        auditLog.reopen();
      } catch (err) {
        logger.error({ err }, 'cannot reopen the audit log');
      }
      daemon.server
        .reloadTls()
        .catch((err) =>
          logger.error(
            { err },
            `TLS reload refused, keeping the previous material: ${err.message}`,
          ),
        );
    });
  });
}
