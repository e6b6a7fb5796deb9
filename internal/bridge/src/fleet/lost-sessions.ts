import type { Clock } from '../clock.js';
import { notFound, outOfRange, precondition } from '../errors.js';
import { isTerminal } from '../events/event.js';
import type { EventCodec } from '../events/event-codec.js';
import type { BatchLimits, EventStream, StreamRequest } from '../events/subscriptions.js';
import type { Caller, SessionSnapshot } from '../types.js';
import { checkSessionId, checkSubscriberId, preview } from '../validate.js';
import { lostStream } from './lost-stream.js';
import type { SessionElsewhere, SessionsElsewhere } from './sessions-elsewhere.js';

/** A lost session as it is served: the fleet's copy, and its end when the copy has none. */
export interface LostSession {
  readonly id: string;
  readonly projectId: string;
  readonly createdAt: number;
  readonly held: SessionElsewhere;
  /** SESSION_FAILED `host_lost`, one after the last held event; undefined when the held history ends. */
  readonly end: { seq: number; bytes: Uint8Array } | undefined;
  snapshot(): SessionSnapshot;
}

/**
 * The sessions of the fleet whose daemon is gone, served read-only from
 * what the fleet holds (issue 26): found by id, listed with the daemon's
 * own, read from any position, acknowledged; every write refused with
 * where the session lived. A session whose daemon is live is refused too,
 * naming that daemon: it is served there.
 */
export class LostSessions {
  constructor(
    private readonly elsewhere: SessionsElsewhere,
    private readonly codec: EventCodec,
    private readonly clock: Clock,
  ) {}

  /** The lost session `sessionId` of the caller's project; NOT_FOUND or FAILED_PRECONDITION else. */
  async find(caller: Caller, sessionId: string, signal: AbortSignal): Promise<LostSession> {
    checkSessionId(sessionId);
    const s = await this.elsewhere.find(sessionId, signal);
    if (!s) throw notFound(sessionId);
    if (s.projectId !== caller.projectId) throw notFound(sessionId, 'session_of_other_project');
    if (s.home.live) {
      throw precondition(
        `session ${sessionId} runs on daemon ${s.home.daemonId} at ${s.home.address}: call that daemon`,
        'session_elsewhere',
      );
    }
    return this.lost(s, signal);
  }

  /** The project's lost sessions, for ListSessions. */
  async list(caller: Caller, signal: AbortSignal): Promise<LostSession[]> {
    const all = await this.elsewhere.lost(caller.projectId, signal);
    return Promise.all(all.map((s) => this.lost(s, signal)));
  }

  /** A write to a lost session: always refused, saying where it lived. */
  async refuseWrite(caller: Caller, sessionId: string, signal: AbortSignal): Promise<never> {
    const { held } = await this.find(caller, sessionId, signal);
    throw precondition(
      `session ${sessionId} lived on daemon ${held.home.daemonId} at ${held.home.address}, which has left the fleet: its history is served read-only here and it takes no more input`,
      'host_lost',
    );
  }

  /** A reader of a lost session's history (see lostStream); `afterSeq` undefined resumes at the subscriber's cursor. */
  async openStream(
    caller: Caller,
    req: StreamRequest,
    signal: AbortSignal,
    batch: BatchLimits,
  ): Promise<{ stream: EventStream; historyId: string }> {
    checkSubscriberId(req.subscriberId, false);
    const l = await this.find(caller, req.sessionId, signal);
    const last = l.end?.seq ?? l.held.lastSeq;
    let after = req.afterSeq;
    if (after === undefined) {
      after = req.subscriberId === '' ? 0 : ((await l.held.cursor(req.subscriberId, signal)) ?? 0);
    }
    if (after > last) {
      throw outOfRange(
        `after_seq ${after} is beyond the last seq ${last}`,
        'after_seq_beyond_last',
      );
    }
    return {
      stream: lostStream(l.held, after, l.end, this.codec, batch, signal),
      historyId: l.held.home.historyId,
    };
  }

  /** Moves a subscriber's cursor on a lost session; resolves with the position kept. */
  async ack(
    caller: Caller,
    sessionId: string,
    subscriberId: string,
    ackSeq: number,
    historyId: string,
    signal: AbortSignal,
  ): Promise<number> {
    checkSubscriberId(subscriberId, true);
    const l = await this.find(caller, sessionId, signal);
    const home = l.held.home.historyId;
    if (historyId !== '' && historyId !== home) {
      throw precondition(
        `history_id ${preview(historyId)} is not the history of session ${sessionId} (${home}), so no cursor was moved`,
        'ack_of_other_history',
      );
    }
    const last = l.end?.seq ?? l.held.lastSeq;
    if (ackSeq > last) {
      throw outOfRange(`ack_seq ${ackSeq} is beyond the last seq ${last}`, 'ack_seq_beyond_last');
    }
    const kept = (await l.held.cursor(subscriberId, signal)) ?? 0;
    if (ackSeq <= kept) return kept;
    await l.held.saveCursor(subscriberId, ackSeq, signal);
    return ackSeq;
  }

  private async lost(s: SessionElsewhere, signal: AbortSignal): Promise<LostSession> {
    const identity = {
      sessionId: s.sessionId,
      projectId: s.projectId,
      provider: s.request.provider,
    };
    let ended = false;
    if (s.lastSeq > 0) {
      for await (const e of s.events(s.lastSeq - 1, signal)) {
        ended = isTerminal(this.codec.decode(e.bytes, identity));
      }
    }
    const now = this.clock.now();
    const why = `the daemon of this session (${s.home.daemonId} at ${s.home.address}) has left the fleet: no more events will come`;
    const end = ended
      ? undefined
      : {
          seq: s.lastSeq + 1,
          bytes: Uint8Array.from(
            this.codec.encode({
              ...identity,
              seq: s.lastSeq + 1,
              timestamp: now,
              type: 'SESSION_FAILED',
              stream: 'system',
              text: why,
              done: true,
              error: why,
              turnId: '',
              data: { reason: 'host_lost', daemon_id: s.home.daemonId, address: s.home.address },
            }),
          ),
        };
    const snapshot = (): SessionSnapshot => ({
      sessionId: s.sessionId,
      projectId: s.projectId,
      provider: s.request.provider,
      status: ended && s.status === 'STOPPED' ? 'STOPPED' : 'FAILED',
      createdAt: new Date(s.createdAt),
      stoppedAt: new Date(s.facts.endedAt ?? now),
      error: ended ? s.facts.error : why,
      pid: 0,
      exitCode: s.facts.exitCode,
      exitSignal: s.facts.exitSignal,
      repoPath: s.repoPath,
      oldestSeq: s.lastSeq > 0 || end ? 1 : 0,
      lastSeq: end?.seq ?? s.lastSeq,
      subscriberCount: 0,
      name: s.request.name ?? '',
      role: s.request.role ?? '',
    });
    return {
      id: s.sessionId,
      projectId: s.projectId,
      createdAt: s.createdAt,
      held: s,
      end,
      snapshot,
    };
  }
}
