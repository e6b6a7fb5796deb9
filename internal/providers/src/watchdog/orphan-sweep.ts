import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readStartTime } from './proc-stat.js';
import { isRecordFile, parseRecord, type RecordOwner } from './process-group-record.js';
import { killRecordedGroup, type RecordedGroup } from './recorded-group.js';
import type { SupervisionLog } from './supervision-log.js';

/**
 * Ends the process groups recorded in `dir` by daemons that are gone (a
 * crash the watchdog did not outlive), then drops their records. Records of
 * daemons still running are theirs: left alone. A group is killed only if
 * it is still the one recorded (`killRecordedGroup`), so a reused pid is
 * never hit. Returns the groups ended.
 */
export function sweepOrphanedGroups(opts: {
  dir: string;
  self: RecordOwner;
  log: SupervisionLog;
}): RecordedGroup[] {
  const { dir, self, log } = opts;
  const ended: RecordedGroup[] = [];
  for (const name of readdirSync(dir).filter(isRecordFile).sort()) {
    const file = join(dir, name);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue; // another daemon swept it meanwhile
    }
    const record = parseRecord(text, (line, reason) =>
      log.warn(`ignoring line ${line} of the process group record ${file}: ${reason}`, { file }),
    );
    const owner = record.owner;
    if (!owner) {
      log.warn(`cannot tell which daemon the process group record ${file} belongs to: left alone`, {
        file,
      });
      continue;
    }
    const sameBoot = owner.bootId === self.bootId;
    if (sameBoot && owner.pid !== self.pid && readStartTime(owner.pid) === owner.startTime)
      continue;
    // From an earlier boot, nothing it names can be running.
    const mine = sameBoot ? record.groups.filter(killRecordedGroup) : [];
    if (mine.length > 0) {
      log.warn(
        `ended ${mine.length} process group(s) left by daemon ${owner.pid}, which is gone: ${mine.map((g) => g.pgid).join(', ')}`,
        {
          file,
          daemon: owner.pid,
          pgids: mine.map((g) => g.pgid),
          sessions: mine.flatMap((g) => (g.sessionId === undefined ? [] : [g.sessionId])),
        },
      );
    }
    ended.push(...mine);
    rmSync(file, { force: true });
  }
  return ended;
}
