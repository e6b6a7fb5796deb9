import { setTimeout as delay } from 'node:timers/promises';
import {
  awaitsAnswer,
  type BridgeClient,
  isTerminal,
  type PermissionRequest,
  permissionRequest,
  permissionResolution,
} from '@agent-bridge/bridgeclient';

/** A permission request that waits for a person, as the approvals page shows it. */
export interface WaitingApproval extends Omit<PermissionRequest, 'expiresAt'> {
  provider: string;
  sessionName: string;
  /** Milliseconds since the epoch; 0 when the daemon named no deadline. */
  expiresAt: number;
}

/**
 * Every permission request that waits for an answer, across the project's
 * running sessions: each running session's events are followed from its
 * first, a request added when asked and removed when resolved (here, by
 * another client, by its timeout or the turn's end) or when the session
 * ends. Listeners hear of each change. Sessions are looked for every
 * `everyMs` while the watch lives.
 */
export class ApprovalsWatch {
  private readonly waiting = new Map<string, WaitingApproval>();
  private readonly followed = new Set<string>();
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly client: BridgeClient,
    private readonly lifetime: AbortSignal,
    private readonly everyMs = 1_000,
  ) {
    void this.look();
  }

  /** The requests waiting now, the soonest to expire first. */
  list(): WaitingApproval[] {
    return [...this.waiting.values()].sort(
      (a, b) => (a.expiresAt || Infinity) - (b.expiresAt || Infinity) || a.seq - b.seq,
    );
  }

  /** Calls `fn` after each change until the returned function is called. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }

  private async look(): Promise<void> {
    while (!this.lifetime.aborted) {
      try {
        for await (const s of this.client.sessions({
          statuses: ['STARTING', 'RUNNING'],
          signal: this.lifetime,
        })) {
          if (!this.followed.has(s.sessionId)) this.follow(s.sessionId, s.provider, s.name);
        }
      } catch {
        // The daemon away or busy: the next look tries again.
      }
      await delay(this.everyMs, undefined, { signal: this.lifetime }).catch(() => undefined);
    }
  }

  private follow(sessionId: string, provider: string, sessionName: string): void {
    this.followed.add(sessionId);
    void (async () => {
      try {
        for await (const e of this.client.events(sessionId, {
          afterSeq: 0,
          signal: this.lifetime,
        })) {
          const request = permissionRequest(e);
          if (request && awaitsAnswer(request)) {
            this.waiting.set(`${sessionId}/${request.requestId}`, {
              ...request,
              provider,
              sessionName,
              expiresAt: request.expiresAt?.getTime() ?? 0,
            });
            this.changed();
          }
          const resolution = permissionResolution(e);
          if (resolution && this.waiting.delete(`${sessionId}/${resolution.requestId}`)) {
            this.changed();
          }
          if (isTerminal(e)) break;
        }
      } catch {
        // The stream failed for good (the session is gone): nothing of it waits any more.
      }
      let dropped = false;
      for (const [key, w] of this.waiting) {
        if (w.sessionId === sessionId) dropped = this.waiting.delete(key);
      }
      if (dropped) this.changed();
      // A session that is still running (its stream broke) is found and followed again.
      this.followed.delete(sessionId);
    })();
  }
}
