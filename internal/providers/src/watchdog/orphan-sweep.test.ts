import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sweepOrphanedGroups } from './orphan-sweep.js';
import { readBootId, readStartTime } from './proc-stat.js';
import { formatRecord, type RecordOwner } from './process-group-record.js';

// The end-to-end sweep (real agents left by a SIGKILLed daemon) is in
// tests/src/faults/f10-no-orphans.test.ts; these are the records it must
// leave alone.

let dir: string;
let victim: ChildProcess;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'orphan-sweep-'));
  victim = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    detached: true,
    stdio: 'ignore',
  });
  await once(victim, 'spawn');
});
afterEach(async () => {
  if (victim.exitCode === null && victim.signalCode === null) {
    victim.kill('SIGKILL');
    await once(victim, 'exit');
  }
  rmSync(dir, { recursive: true, force: true });
});

const self: RecordOwner = {
  pid: process.pid,
  startTime: readStartTime(process.pid)!,
  bootId: readBootId(),
};

function sweep() {
  const warnings: string[] = [];
  const ended = sweepOrphanedGroups({
    dir,
    self,
    log: { warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
  });
  return { ended, warnings };
}

const victimGroup = () => [{ pgid: victim.pid!, startTime: readStartTime(victim.pid!)! }];

describe('sweepOrphanedGroups', () => {
  it('ends a matching group of a daemon that is gone, and drops its record', async () => {
    writeFileSync(
      join(dir, 'groups-999999.jsonl'),
      formatRecord({ pid: 999_999, startTime: '1', bootId: self.bootId }, victimGroup()),
    );
    const { ended, warnings } = sweep();
    expect(ended.map((g) => g.pgid)).toEqual([victim.pid]);
    await once(victim, 'exit');
    expect(victim.signalCode).toBe('SIGKILL');
    expect(warnings).toEqual([
      expect.stringMatching(/^ended 1 process group\(s\) left by daemon 999999/),
    ]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('leaves the groups of a daemon that still runs alone (the victim plays the daemon)', () => {
    const live = { pid: victim.pid!, startTime: readStartTime(victim.pid!)!, bootId: self.bootId };
    writeFileSync(join(dir, `groups-${live.pid}.jsonl`), formatRecord(live, victimGroup()));
    const { ended } = sweep();
    expect(ended).toEqual([]);
    expect(victim.exitCode === null && victim.signalCode === null).toBe(true);
    expect(readdirSync(dir)).toEqual([`groups-${live.pid}.jsonl`]);
  });

  it('kills nothing a record from another boot names, and drops the record', () => {
    writeFileSync(
      join(dir, 'groups-999999.jsonl'),
      formatRecord({ pid: 999_999, startTime: '1', bootId: 'another-boot' }, victimGroup()),
    );
    expect(sweep().ended).toEqual([]);
    expect(victim.exitCode === null && victim.signalCode === null).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('leaves a record whose owner cannot be read, with a warning', () => {
    writeFileSync(
      join(dir, 'groups-5.jsonl'),
      `not json\n${JSON.stringify({ pgid: victim.pid, start: '1' })}\n`,
    );
    const { ended, warnings } = sweep();
    expect(ended).toEqual([]);
    expect(warnings).toEqual([
      expect.stringMatching(/^ignoring line 1 of the process group record .*groups-5\.jsonl/),
      expect.stringMatching(/^cannot tell which daemon .*groups-5\.jsonl.*left alone/),
    ]);
    expect(readdirSync(dir)).toEqual(['groups-5.jsonl']);
  });
});
