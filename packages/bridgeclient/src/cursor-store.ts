import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Whose cursor: one subscriber of one session of one project. A session id
 * names one session wherever it is reached, so the built-in stores key by
 * project, session and subscriber only: the same daemon reached by another
 * address (a proxy, a load balancer, `localhost` or an IP) finds its
 * cursor, and the history id stored with it tells whether the daemon that
 * answers now still serves the history it was taken in.
 */
export interface CursorKey {
  /** The address the stream used (for stores that want to show it; not part of the identity). */
  target: string;
  projectId: string;
  sessionId: string;
  subscriberId: string;
}

/** How far a subscriber has processed a session, and in which history. */
export interface Cursor {
  /** Every event with seq <= ackSeq has been processed. */
  ackSeq: number;
  /**
   * The history the events were read from: the daemon's `history_id`
   * when it was taken (kept across restarts with its store).
   */
  instanceId: string;
}

/**
 * Where event streams keep their subscribers' cursors, so a control plane
 * that restarts resumes where it left off. Implementations must be safe to
 * call concurrently for different keys, and should key by project, session
 * and subscriber (see CursorKey).
 */
export interface CursorStore {
  load(key: CursorKey): Promise<Cursor | undefined>;
  save(key: CursorKey, cursor: Cursor): Promise<void>;
  delete(key: CursorKey): Promise<void>;
}

const id = (k: CursorKey) => JSON.stringify([k.projectId, k.sessionId, k.subscriberId]);

/** The key of files written before cursors stopped being keyed by address. */
const legacyId = (k: CursorKey) =>
  JSON.stringify([k.target, k.projectId, k.sessionId, k.subscriberId]);

/** Cursors in this process's memory: they survive reconnects, not restarts. The default. */
export class MemoryCursorStore implements CursorStore {
  private readonly cursors = new Map<string, Cursor>();

  async load(key: CursorKey): Promise<Cursor | undefined> {
    const c = this.cursors.get(id(key));
    return c ? { ...c } : undefined;
  }

  async save(key: CursorKey, cursor: Cursor): Promise<void> {
    this.cursors.set(id(key), { ...cursor });
  }

  async delete(key: CursorKey): Promise<void> {
    this.cursors.delete(id(key));
  }
}

/**
 * Cursors as files in `dir` (created with mode 0700), one per key, each
 * written whole to a temporary file (mode 0600), flushed, and renamed over
 * the old one, so a crash never leaves half a cursor. A stream deletes its
 * cursor when it finds the session gone; cursors of sessions that ended
 * are kept (a stream reopened on one resumes after its end), so a control
 * plane that keeps many deletes them with `delete` once done with them.
 */
export class FileCursorStore implements CursorStore {
  private ready: Promise<unknown> | undefined;

  constructor(private readonly dir: string) {}

  async load(key: CursorKey): Promise<Cursor | undefined> {
    // A cursor saved by an older version, under the address it used, is still found.
    return (await this.read(key, id)) ?? (await this.read(key, legacyId));
  }

  async save(key: CursorKey, cursor: Cursor): Promise<void> {
    this.ready ??= mkdir(this.dir, { recursive: true, mode: 0o700 });
    await this.ready;
    const file = this.file(key);
    const tmp = `${file}.${randomUUID()}.tmp`;
    const body = JSON.stringify({ key: JSON.parse(id(key)), cursor });
    try {
      // Flushed to disk before the rename, so even a crash of the host leaves the old or the new cursor.
      const fh = await open(tmp, 'wx', 0o600);
      try {
        await fh.writeFile(body);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, file);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  async delete(key: CursorKey): Promise<void> {
    await rm(this.file(key), { force: true });
    await rm(this.file(key, legacyId), { force: true });
  }

  private async read(key: CursorKey, keyId: (k: CursorKey) => string): Promise<Cursor | undefined> {
    const file = this.file(key, keyId);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    let stored: { key?: unknown; cursor?: Partial<Cursor> };
    try {
      stored = JSON.parse(text);
    } catch (err) {
      throw new Error(`cursor file ${file} is corrupt (not JSON): delete it to start over`, {
        cause: err,
      });
    }
    const c = stored?.cursor;
    if (
      JSON.stringify(stored.key) !== keyId(key) ||
      !Number.isSafeInteger(c?.ackSeq) ||
      typeof c?.instanceId !== 'string'
    ) {
      throw new Error(`cursor file ${file} is not a cursor for this key: delete it to start over`);
    }
    return { ackSeq: c.ackSeq as number, instanceId: c.instanceId };
  }

  private file(key: CursorKey, keyId: (k: CursorKey) => string = id): string {
    return join(this.dir, `${createHash('sha256').update(keyId(key)).digest('hex')}.json`);
  }
}
