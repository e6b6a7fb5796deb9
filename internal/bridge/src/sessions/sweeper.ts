import type { Clock, Timers } from '../clock.js';
import type { CoreSettings, Logger } from '../types.js';
import type { Session } from './session.js';

export interface SweeperDeps {
  /** The live and retained sessions. */
  sessions(): Iterable<Session>;
  /** Forgets an ended session past its retention (the manager owns the sessions). */
  evict(session: Session): void;
  settings: CoreSettings;
  clock: Clock;
  timers: Timers;
  logger: Logger;
}

/**
 * Sweeps `sessions` periodically until `signal` aborts: stops sessions idle
 * for the idle timeout, forgets ended ones after the retention period and
 * expires subscriber cursors past their TTL.
 */
export function startSweeper(deps: SweeperDeps, signal: AbortSignal): void {
  deps.timers.every(sweepInterval(deps.settings), () => sweep(deps), signal);
}

/**
 * A quarter of the shortest of the three durations, so none of them is
 * overrun by more than a quarter; within [25ms, 1s] so short settings do
 * not spin and long ones are still checked every second.
 */
function sweepInterval({ idleTimeoutMs, retentionMs, subscriberTtlMs }: CoreSettings): number {
  return Math.min(1000, Math.max(25, Math.min(idleTimeoutMs, retentionMs, subscriberTtlMs) / 4));
}

function sweep({ sessions, evict, settings, clock, logger }: SweeperDeps): void {
  const now = clock.now();
  const { idleTimeoutMs, retentionMs } = settings;
  for (const s of [...sessions()]) {
    if (
      s.status === 'RUNNING' &&
      s.readers.count === 0 &&
      idleTimeoutMs > 0 &&
      now - s.readers.lastActivity >= idleTimeoutMs
    ) {
      logger.info({ sessionId: s.id }, 'session idle: stopping');
      s.stop('idle_timeout', false).catch(() => undefined);
    } else if (s.ended && s.kept.endedAt !== undefined && now - s.kept.endedAt >= retentionMs) {
      evict(s);
    }
    s.cursors.expire(now);
  }
}
