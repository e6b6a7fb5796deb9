import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GroupObserver, LiveProcessGroups } from './live-process-groups.js';
import type { RecordedGroup } from './recorded-group.js';
import type { SupervisionLog } from './supervision-log.js';

/**
 * The daemon instance a record file belongs to. While that process lives
 * (same pid, same start time, same boot) its groups are its own; once it is
 * gone they are orphans any daemon sharing the directory may end.
 */
export interface RecordOwner {
  pid: number;
  startTime: string;
  bootId: string;
}

export interface ParsedRecord {
  /** Undefined when the first line is not a valid owner: then nobody can tell whose groups these are. */
  owner: RecordOwner | undefined;
  groups: RecordedGroup[];
}

const FILE = /^groups-(\d+)\.jsonl$/;

/** The record file of daemon `pid` in `dir`: one per daemon, so daemons sharing a directory never write the same file. */
export function recordFile(dir: string, pid: number): string {
  return join(dir, `groups-${pid}.jsonl`);
}

/** Whether `name` (a directory entry) is some daemon's record file. */
export function isRecordFile(name: string): boolean {
  return FILE.test(name);
}

/** JSON lines: the owner first, then one live group a line. */
export function formatRecord(owner: RecordOwner, groups: readonly RecordedGroup[]): string {
  const lines = [JSON.stringify({ daemon: owner.pid, start: owner.startTime, boot: owner.bootId })];
  for (const g of groups)
    lines.push(
      JSON.stringify({
        pgid: g.pgid,
        start: g.startTime,
        ...(g.sessionId === undefined ? {} : { session: g.sessionId }),
      }),
    );
  return `${lines.join('\n')}\n`;
}

/**
 * Reads a record file's text. A line that is not a valid entry is skipped
 * and reported through `problem` (line numbers from 1): a damaged line must
 * neither stop the others from being ended nor end something at random.
 */
export function parseRecord(
  text: string,
  problem: (line: number, reason: string) => void,
): ParsedRecord {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  let owner: RecordOwner | undefined;
  const groups: RecordedGroup[] = [];
  lines.forEach((line, i) => {
    const value = parseJson(line);
    if (i === 0) {
      owner = asOwner(value);
      if (!owner) problem(1, 'not a daemon header {daemon, start, boot}');
      return;
    }
    const group = asGroup(value);
    if (group) groups.push(group);
    else problem(i + 1, 'not a process group entry {pgid, start}');
  });
  return { owner, groups };
}

/**
 * Replaces `file` with `text` in one step: written beside it, then renamed
 * over it, so a reader (or a daemon starting after a crash) sees the old
 * record or the new one, never half of one. No fsync: what the record names
 * does not survive a power loss either.
 */
export function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text, { mode: 0o600 });
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** How long the record may lag behind spawns and exits. */
const RECORD_DELAY_MS = 100;

/**
 * This daemon's record of its live process groups, rewritten after spawns
 * and exits, so that the next daemon can end what a crash left running when
 * the watchdog died too. Changes within `delayMs` share one rewrite: a
 * rewrite costs as much as there are live groups, so with thousands of
 * sessions starting, one per change would cost the square. The watchdog,
 * told of every group at once, covers that lag.
 */
export class ProcessGroupRecord implements GroupObserver {
  private failing = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly file: string,
    private readonly owner: RecordOwner,
    private readonly groups: LiveProcessGroups,
    private readonly log: SupervisionLog,
    private readonly delayMs = RECORD_DELAY_MS,
  ) {
    // Written at once so that a failure (a read-only directory) shows at start-up.
    writeAtomically(file, formatRecord(owner, groups.list()));
  }

  added(): void {
    this.schedule();
  }

  removed(): void {
    this.schedule();
  }

  /** Writes what changed now instead of at the end of the delay. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.rewrite();
  }

  /** After a clean stop: nothing is left to end. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    rmSync(this.file, { force: true });
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.delayMs).unref();
  }

  private rewrite(): void {
    try {
      writeAtomically(this.file, formatRecord(this.owner, this.groups.list()));
      if (this.failing)
        this.log.warn('the process group record is written again', { file: this.file });
      this.failing = false;
    } catch (err) {
      // Spawning goes on: the watchdog still guards the groups. Said once per failing spell.
      if (!this.failing)
        this.log.error(`cannot write the process group record: ${(err as Error).message}`, {
          file: this.file,
        });
      this.failing = true;
    }
  }
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

const isDigits = (v: unknown): v is string => typeof v === 'string' && /^\d+$/.test(v);
const isPid = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 1;

function asOwner(v: unknown): RecordOwner | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  if (!isPid(o.daemon) || !isDigits(o.start) || typeof o.boot !== 'string') return undefined;
  return { pid: o.daemon, startTime: o.start, bootId: o.boot };
}

function asGroup(v: unknown): RecordedGroup | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  if (!isPid(o.pgid) || !isDigits(o.start)) return undefined;
  if (o.session !== undefined && typeof o.session !== 'string') return undefined;
  return {
    pgid: o.pgid,
    startTime: o.start,
    ...(typeof o.session === 'string' ? { sessionId: o.session } : {}),
  };
}
