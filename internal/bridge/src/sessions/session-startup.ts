import { scope } from '@agent-bridge/scope';
import { StoppedDuringStartup, type StopReason } from './session-ending.js';

/**
 * A session's start-up: the promise identical retries and stops wait on,
 * and the scope a stop during it ends (StoppedDuringStartup), and nothing
 * else, so the provider may watch it for as long as its start-up runs.
 */
export class SessionStartup {
  private promise: Promise<void> | undefined;
  private readonly scope = scope();

  /** Settles when start-up has finished (either way); undefined before it began. */
  get started(): Promise<void> | undefined {
    return this.promise;
  }

  /** Start-up has begun: identical retries and stops wait on `startup`. Once only. */
  begin(startup: Promise<void>): void {
    if (this.promise) throw new Error('this session was already started');
    this.promise = startup;
  }

  /**
   * Aborted (with StoppedDuringStartup) when the session is stopped while it
   * starts, so a start-up still waiting (for its turn in a shared home, for
   * a slow handshake) ends at once instead of bringing up an agent only to
   * stop it.
   */
  get abandoned(): AbortSignal {
    return this.scope.signal;
  }

  abandon(reason: StopReason): void {
    this.scope.end(new StoppedDuringStartup(reason));
  }

  /** Resolves once start-up has finished, whichever way (at once when it never began). */
  async settled(): Promise<void> {
    await this.promise?.catch(() => undefined);
  }
}
