import { setTimeout as delay } from 'node:timers/promises';
import type { Member, SessionRecord } from '@agent-bridge/bridge';
import type {
  FleetDirectory,
  FleetSessionRecord,
  FleetSessions,
  SessionOwner,
} from '@agent-bridge/jetstream';
import { joined } from './join-fleet.js';

const LIVE = new Set(['STARTING', 'RUNNING', 'STOPPING']);

/**
 * The live sessions of the fleet's other daemons, kept current for the
 * context bus's `who` and addressing: the fleet's session records as they
 * change (a KV watch), and which daemons are in the directory now (read
 * every `refreshMs`). A session counts while its record says it is live
 * and its daemon, with the same history, is in the directory.
 */
export class RemoteMembers {
  private readonly records = new Map<string, FleetSessionRecord<SessionRecord>>();
  private live = new Set<string>();

  constructor(private readonly self: SessionOwner) {}

  members(projectId: string): Member[] {
    const out: Member[] = [];
    for (const { projectId: p, owner, record, updatedAt } of this.records.values()) {
      if (p !== projectId || !LIVE.has(record.status)) continue;
      if (owner.daemonId === this.self.daemonId) continue;
      if (!this.live.has(`${owner.daemonId}\n${owner.historyId}`)) continue;
      out.push({
        sessionId: record.request.sessionId,
        name: record.request.name ?? '',
        role: record.request.role ?? '',
        provider: record.request.provider,
        repoPath: record.repoPath,
        status: record.status,
        lastActivityAt: updatedAt,
      });
    }
    return out;
  }

  /** Follows the fleet until `lifetime` ends, starting again after a failure. */
  follow(
    fleet: Promise<{ sessions: FleetSessions; directory: FleetDirectory }>,
    lifetime: AbortSignal,
    failed: (err: Error) => void,
    refreshMs = 1000,
  ): void {
    void (async () => {
      const f = await joined(fleet, lifetime).catch(() => undefined);
      if (!f) return;
      void this.keepReading(lifetime, failed, async () => {
        for await (const change of f.sessions.watch<SessionRecord>(lifetime)) {
          if ('removed' in change) this.records.delete(change.sessionId);
          else this.records.set(change.sessionId, change);
        }
      });
      void this.keepReading(lifetime, failed, async () => {
        for (;;) {
          this.live = new Set((await f.directory.live()).map((d) => `${d.id}\n${d.historyId}`));
          await delay(refreshMs, undefined, { signal: lifetime });
        }
      });
    })();
  }

  private async keepReading(
    lifetime: AbortSignal,
    failed: (err: Error) => void,
    read: () => Promise<void>,
  ): Promise<void> {
    let pause = 500;
    while (!lifetime.aborted) {
      try {
        await read();
      } catch (err) {
        if (lifetime.aborted) return;
        failed(err as Error);
      }
      await delay(pause, undefined, { signal: lifetime }).catch(() => undefined);
      pause = Math.min(pause * 2, 30_000);
    }
  }
}
