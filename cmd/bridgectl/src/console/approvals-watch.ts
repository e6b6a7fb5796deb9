import { setTimeout as delay } from 'node:timers/promises';
import {
  awaitsAnswer,
  isTerminal,
  type PermissionRequest,
  permissionRequest,
  permissionResolution,
} from '@agent-bridge/bridgeclient';
import type { ConsoleTarget } from './console-target.js';
import type { ProjectTargets } from './project-targets.js';

/** A permission request that waits for a person, as the approvals page shows it. */
export interface WaitingApproval extends Omit<PermissionRequest, 'expiresAt'> {
  provider: string;
  sessionName: string;
  projectId: string;
  /** Milliseconds since the epoch; 0 when the daemon named no deadline. */
  expiresAt: number;
}

/** How long the watch goes on after its last reader left (a page reloading comes back at once). */
const LINGER_MS = 30_000;
/** The most sessions followed at once. */
const MAX_FOLLOWED = 200;

/**
 * Every permission request that waits for an answer, across the project's
 * running sessions, while someone looks: each running session's events are
 * followed (from its first, then from where the last read ended when a
 * stream breaks), a request added when asked and removed when resolved
 * (here, by another client, by its timeout or the turn's end) or when its
 * session ends. Sessions are looked for every `everyMs`. It runs while it
 * has subscribers, or for a while after `list(true)`, and stops a while
 * after the last one left.
 */
export class ApprovalsWatch {
  private readonly waiting = new Map<string, WaitingApproval>();
  /** The sessions followed now. */
  private readonly followed = new Set<string>();
  /** Where each session's reading got to: a broken stream resumes there. */
  private readonly readTo = new Map<string, number>();
  private readonly listeners = new Set<() => void>();
  private watching: AbortController | undefined;
  private lingering: NodeJS.Timeout | undefined;

  constructor(
    private readonly projects: Pick<ProjectTargets, 'entries' | 'remember'>,
    private readonly lifetime: AbortSignal,
    private readonly everyMs = 1_000,
  ) {}

  /** The requests waiting now, the soonest to expire first; `touch` keeps the watch on a while. */
  list(touch = false): WaitingApproval[] {
    if (touch) {
      this.start();
      this.linger();
    }
    return [...this.waiting.values()].sort(
      (a, b) => (a.expiresAt || Infinity) - (b.expiresAt || Infinity) || a.seq - b.seq,
    );
  }

  /** Calls `fn` after each change until the returned function is called; the watch runs meanwhile. */
  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    this.start();
    return () => {
      this.listeners.delete(fn);
      if (this.listeners.size === 0) this.linger();
    };
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }

  private start(): void {
    clearTimeout(this.lingering);
    if (this.watching || this.lifetime.aborted) return;
    const watching = new AbortController();
    this.watching = watching;
    const signal = AbortSignal.any([this.lifetime, watching.signal]);
    void this.look(signal);
  }

  private linger(): void {
    clearTimeout(this.lingering);
    this.lingering = setTimeout(() => {
      if (this.listeners.size > 0) return;
      this.watching?.abort();
      this.watching = undefined;
    }, LINGER_MS);
    this.lingering.unref();
  }

  private async look(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const running = new Set<string>();
      let whole = true;
      for (const [projectId, target] of this.projects.entries()) {
        try {
          for await (const s of target.liveSessions(signal)) {
            running.add(s.sessionId);
            this.projects.remember(s.sessionId, projectId);
            if (!this.followed.has(s.sessionId) && this.followed.size < MAX_FOLLOWED) {
              this.follow(target, { ...s, projectId }, signal);
            }
          }
        } catch {
          // A daemon away or busy: its sessions are not taken for ended; the next look tries again.
          whole = false;
        }
      }
      if (whole) this.forgetEnded(running);
      await delay(this.everyMs, undefined, { signal }).catch(() => undefined);
    }
  }

  /** Sessions no longer running and not followed: nothing of them waits. */
  private forgetEnded(running: Set<string>): void {
    let dropped = false;
    for (const [key, w] of this.waiting) {
      if (!running.has(w.sessionId) && !this.followed.has(w.sessionId)) {
        dropped = this.waiting.delete(key) || dropped;
      }
    }
    for (const id of this.readTo.keys()) {
      if (!running.has(id) && !this.followed.has(id)) this.readTo.delete(id);
    }
    if (dropped) this.changed();
  }

  private follow(
    target: Pick<ConsoleTarget, 'calls'>,
    session: { sessionId: string; provider: string; name: string; projectId: string },
    signal: AbortSignal,
  ) {
    const { sessionId, provider, name: sessionName, projectId } = session;
    this.followed.add(sessionId);
    void (async () => {
      let ended = false;
      try {
        const afterSeq = this.readTo.get(sessionId) ?? 0;
        for await (const e of target.calls.events(sessionId, { afterSeq, signal })) {
          this.readTo.set(sessionId, e.seq);
          const request = permissionRequest(e);
          if (request && awaitsAnswer(request)) {
            this.waiting.set(`${sessionId}/${request.requestId}`, {
              ...request,
              provider,
              sessionName,
              projectId,
              expiresAt: request.expiresAt?.getTime() ?? 0,
            });
            this.changed();
          }
          const resolution = permissionResolution(e);
          if (resolution && this.waiting.delete(`${sessionId}/${resolution.requestId}`)) {
            this.changed();
          }
          if (isTerminal(e)) {
            ended = true;
            break;
          }
        }
      } catch {
        // A broken stream: the next look follows the session again, from where this one got to.
      } finally {
        this.followed.delete(sessionId);
      }
      if (ended) {
        this.readTo.delete(sessionId);
        let dropped = false;
        for (const [key, w] of this.waiting) {
          if (w.sessionId === sessionId) dropped = this.waiting.delete(key) || dropped;
        }
        if (dropped) this.changed();
      }
    })();
  }
}
