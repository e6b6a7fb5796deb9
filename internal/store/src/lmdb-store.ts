import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type {
  CommitSink,
  EventLog,
  SessionRecord,
  SessionStore,
  StoredCursor,
  StoredSession,
} from '@agent-bridge/bridge';
import { type Database, open, type RootDatabase } from 'lmdb';
import { LmdbCollab } from './lmdb-collab.js';
import { lockPath, type PathLock } from './private/path-lock.js';
import { checkNotTruncated, StoreDamagedError } from './private/truncation-check.js';

export interface LmdbStoreOptions {
  /** The store's directory (created, mode 0700, when missing). */
  path: string;
  /**
   * Whether a commit waits for the disk (fdatasync) before readers see its
   * events: true unless asked otherwise. Without it a crash of the process
   * loses nothing, but a crash of the host may lose the last commits.
   */
  sync?: boolean;
  /** The most its data may take, in bytes (`storage.max_size`); 0 or absent: no bound. */
  maxBytes?: number;
}

/** Key of the history identity in the meta database. */
const HISTORY_KEY = 'history_id';

/**
 * The daemon's embedded session store on LMDB (see README): one
 * environment in one directory, its events keyed [session id, seq], a
 * history identity created with it. Appends made in one turn of the event
 * loop are committed in one transaction; a log's sink hears `committed`
 * once that transaction is on disk.
 */
export class LmdbStore implements SessionStore {
  readonly durable = true;
  readonly collab: LmdbCollab;

  private constructor(
    readonly path: string,
    readonly historyId: string,
    private readonly root: RootDatabase,
    private readonly events: Database<Buffer, [string, number]>,
    private readonly records: Database<SessionRecord, string>,
    private readonly cursors: Database<Omit<StoredCursor, 'subscriberId'>, [string, string]>,
    private readonly lock: PathLock,
    private readonly maxBytes: number,
  ) {
    this.collab = new LmdbCollab(root);
  }

  /**
   * Opens (or creates) the store at `o.path`. Refuses a directory another
   * daemon holds (StoreLockedError) and a damaged data file
   * (StoreDamagedError), before reading anything.
   */
  static async open(o: LmdbStoreOptions): Promise<LmdbStore> {
    mkdirSync(o.path, { recursive: true, mode: 0o700 });
    const lock = await lockPath(o.path);
    try {
      const file = join(o.path, 'data.mdb');
      // LMDB takes an empty file for a new store: that would be a silent wipe.
      if (existsSync(file) && statSync(file).size === 0) {
        throw new StoreDamagedError(file, 'it is empty');
      }
      const root = open({ path: o.path, maxDbs: 12, noSync: o.sync === false });
      try {
        const info = root.getStats() as { lastPageNumber?: number; pageSize?: number };
        checkNotTruncated(o.path, info.lastPageNumber ?? 0, info.pageSize ?? 4096);
        const meta = root.openDB<string, string>({ name: 'meta', encoding: 'json' });
        let historyId = meta.get(HISTORY_KEY);
        if (historyId === undefined) {
          historyId = randomUUID();
          await meta.put(HISTORY_KEY, historyId);
        }
        const events = root.openDB<Buffer, [string, number]>({
          name: 'events',
          encoding: 'binary',
        });
        const records = root.openDB<SessionRecord, string>({ name: 'sessions' });
        const cursors = root.openDB<Omit<StoredCursor, 'subscriberId'>, [string, string]>({
          name: 'cursors',
        });
        return new LmdbStore(
          o.path,
          historyId,
          root,
          events,
          records,
          cursors,
          lock,
          o.maxBytes ?? 0,
        );
      } catch (err) {
        await root.close();
        throw err;
      }
    } catch (err) {
      await lock.release();
      throw err;
    }
  }

  eventLog(sessionId: string, sink: CommitSink, keptFrom = 1): EventLog {
    return new LmdbEventLog(this.events, sessionId, sink, keptFrom);
  }

  *storedSessions(): Generator<StoredSession> {
    for (const { key, value: record } of this.records.getRange()) {
      yield {
        record,
        events: () => this.storedEvents(key),
        cursors: [...this.cursors.getRange(cursorKeys(key))].map(({ key: k, value }) => ({
          subscriberId: k[1],
          ...value,
        })),
      };
    }
  }

  saveSession(record: SessionRecord): void {
    settled(this.records.put(record.request.sessionId, record));
  }

  async saveCursor(sessionId: string, cursor: StoredCursor): Promise<void> {
    const { subscriberId, ...kept } = cursor;
    const write = this.cursors.put([sessionId, subscriberId], kept);
    settled(write);
    await write;
  }

  forgetSession(sessionId: string): void {
    settled(this.records.remove(sessionId));
    for (const key of this.cursors.getKeys(cursorKeys(sessionId))) {
      settled(this.cursors.remove(key));
    }
    for (const key of this.events.getKeys(eventKeys(sessionId))) settled(this.events.remove(key));
  }

  /** The events kept for `sessionId` after `afterSeq`, oldest first, as appended. */
  *storedEvents(sessionId: string, afterSeq = 0): Generator<{ seq: number; bytes: Buffer }> {
    for (const { key, value } of this.events.getRange(eventKeys(sessionId, afterSeq + 1))) {
      yield { seq: key[1], bytes: value };
    }
  }

  /**
   * The pages its databases use (freed pages, which LMDB reuses, not
   * counted: the file itself never shrinks), and the bound.
   */
  size(): { usedBytes: number; maxBytes: number } {
    let usedBytes = 0;
    for (const db of [this.events, this.records, this.cursors, ...this.collab.databases]) {
      const s = db.getStats() as PageStats;
      usedBytes += (s.treeBranchPageCount + s.treeLeafPageCount + s.overflowPages) * s.pageSize;
    }
    return { usedBytes, maxBytes: this.maxBytes };
  }

  /** Closes the environment once every write made so far is committed, and frees the path. */
  async close(): Promise<void> {
    await this.root.close();
    await this.lock.release();
  }
}

/** What lmdb's getStats says of one database's pages. */
interface PageStats {
  pageSize: number;
  treeBranchPageCount: number;
  treeLeafPageCount: number;
  overflowPages: number;
}

/** The keys of one session's events: [session id, seq]. */
const eventKeys = (sessionId: string, from = 0) => ({
  start: [sessionId, from] as [string, number],
  end: [sessionId, Number.MAX_SAFE_INTEGER] as [string, number],
});

/** The keys of one session's cursors: [session id, subscriber id]. */
const cursorKeys = (sessionId: string) => ({
  start: [sessionId, ''] as [string, string],
  end: [sessionId, '\uffff'] as [string, string],
});

/**
 * Keeps a write's failure from becoming an unhandled rejection: lmdb
 * rejects the write and, separately, its `commitError`. A failed commit
 * reaches the sessions through their event logs, which report it.
 */
function settled(write: Promise<unknown>): void {
  write.catch((err: { commitError?: Promise<unknown> }) => {
    err?.commitError?.catch(() => undefined);
  });
}

/**
 * One session's events in the store. The appends and drops of one
 * event-loop turn go to LMDB as one write (a transaction callback, batched
 * by lmdb with the turn's other writes into one transaction: one promise
 * per turn, not one per event); the sink is told when it commits, which
 * covers every earlier one.
 */
class LmdbEventLog implements EventLog {
  readonly commitsAtOnce = false;
  private lastSeq = 0;
  /** Appended this turn, not yet handed to lmdb. */
  private puts: [number, Buffer][] = [];
  /** Events before this seq are to go; `dropped` is where the removals got to. */
  private dropTo: number;
  private dropped: number;
  private scheduled = false;
  private failed = false;

  constructor(
    private readonly db: Database<Buffer, [string, number]>,
    private readonly sessionId: string,
    private readonly sink: CommitSink,
    keptFrom: number,
  ) {
    this.dropTo = keptFrom;
    this.dropped = keptFrom;
  }

  append(seq: number, bytes: Uint8Array): void {
    if (this.failed) return;
    // Handed over (see EventLog.append): lmdb reads them when the write runs.
    this.puts.push([seq, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]);
    this.lastSeq = seq;
    this.schedule();
  }

  dropBefore(seq: number): void {
    if (this.failed || seq <= this.dropTo) return;
    this.dropTo = seq;
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.write());
  }

  private write(): void {
    this.scheduled = false;
    const { db, sessionId } = this;
    const puts = this.puts;
    this.puts = [];
    const [from, to] = [this.dropped, this.dropTo];
    this.dropped = to;
    const seq = this.lastSeq;
    const write = db.transaction(() => {
      for (const [s, value] of puts) db.putSync([sessionId, s], value);
      for (let s = from; s < to; s++) db.removeSync([sessionId, s]);
    });
    write.then(
      () => {
        if (!this.failed && puts.length > 0) this.sink.committed(seq);
      },
      (err: Error & { commitError?: Promise<unknown> }) => {
        // lmdb rejects that promise too; its reason is the same failure.
        err.commitError?.catch(() => undefined);
        if (this.failed) return;
        this.failed = true;
        this.sink.failed(err);
      },
    );
  }
}
