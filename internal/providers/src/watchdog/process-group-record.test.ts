import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveProcessGroups } from './live-process-groups.js';
import {
  formatRecord,
  isRecordFile,
  ProcessGroupRecord,
  parseRecord,
  type RecordOwner,
  recordFile,
  writeAtomically,
} from './process-group-record.js';
import type { SupervisionLog } from './supervision-log.js';

const owner: RecordOwner = { pid: 4242, startTime: '123456', bootId: 'b00t' };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'group-record-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function recorder() {
  const lines: string[] = [];
  const log: SupervisionLog = {
    warn: (msg) => lines.push(`warn ${msg}`),
    error: (msg) => lines.push(`error ${msg}`),
  };
  return { log, lines };
}

describe('parseRecord', () => {
  it('reads back what formatRecord wrote: the owner, then each group with its session', () => {
    const groups = [
      { pgid: 100, startTime: '777', sessionId: 's-1' },
      { pgid: 200, startTime: '888' },
    ];
    const problems: string[] = [];
    const parsed = parseRecord(formatRecord(owner, groups), (line, why) =>
      problems.push(`${line}: ${why}`),
    );
    expect(parsed).toEqual({ owner, groups });
    expect(problems).toEqual([]);
  });

  it('skips damaged lines, reporting each by number, and keeps the good ones', () => {
    const text = [
      JSON.stringify({ daemon: 4242, start: '123456', boot: 'b00t' }),
      '{"pgid": 100, "start": "777"}',
      '{"pgid": 1, "start": "5"}', // never pid 1
      '{"pgid": 300, "start": 12}', // start time must be the /proc text
      'garbage',
      '{"pgid": 400, "start": "999", "session": 7}',
      '{"pgid": 500, "start": "1000"', // cut short
      '{"pgid": 600, "start": "1001"}',
    ].join('\n');
    const problems: number[] = [];
    const parsed = parseRecord(text, (line) => problems.push(line));
    expect(parsed.owner).toEqual(owner);
    expect(parsed.groups.map((g) => g.pgid)).toEqual([100, 600]);
    expect(problems).toEqual([3, 4, 5, 6, 7]);
  });

  it('a damaged header leaves the owner unknown but still reads the groups', () => {
    const problems: string[] = [];
    const parsed = parseRecord('{"daemon": "x"}\n{"pgid": 100, "start": "7"}\n', (line, why) =>
      problems.push(`${line}: ${why}`),
    );
    expect(parsed.owner).toBeUndefined();
    expect(parsed.groups).toEqual([{ pgid: 100, startTime: '7' }]);
    expect(problems).toEqual([expect.stringMatching(/^1: not a daemon header/)]);
  });
});

describe('writeAtomically', () => {
  it('replaces the file in one rename: a reader holding the old one sees it whole, no temp file stays', () => {
    const file = join(dir, 'groups-1.jsonl');
    writeFileSync(file, 'old contents\n');
    const before = statSync(file).ino;
    writeAtomically(file, 'new contents\n');
    expect(readFileSync(file, 'utf8')).toBe('new contents\n');
    // A new inode: the old text was never overwritten in place.
    expect(statSync(file).ino).not.toBe(before);
    expect(readdirSync(dir)).toEqual(['groups-1.jsonl']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('leaves nothing behind when the write fails', () => {
    const file = join(dir, 'missing-dir', 'groups-1.jsonl');
    expect(() => writeAtomically(file, 'x')).toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('ProcessGroupRecord', () => {
  it('holds exactly the live groups after every spawn and exit, and is removed on close', () => {
    const groups = new LiveProcessGroups();
    const { log, lines } = recorder();
    const file = recordFile(dir, owner.pid);
    expect(isRecordFile('groups-4242.jsonl')).toBe(true);
    expect(isRecordFile('groups-4242.jsonl.4242.tmp')).toBe(false);
    const record = new ProcessGroupRecord(file, owner, groups, log);
    groups.observe(record);
    const read = () => parseRecord(readFileSync(file, 'utf8'), () => {});
    expect(read()).toEqual({ owner, groups: [] });
    groups.add({ pgid: 100, startTime: '1', sessionId: 'a' });
    groups.add({ pgid: 200, startTime: '2', sessionId: 'b' });
    record.flush();
    expect(read().groups.map((g) => g.pgid)).toEqual([100, 200]);
    groups.remove(100);
    record.flush();
    expect(read().groups).toEqual([{ pgid: 200, startTime: '2', sessionId: 'b' }]);
    record.close();
    expect(readdirSync(dir)).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('a failing write is logged once, spawning goes on, and recovery is said', () => {
    const groups = new LiveProcessGroups();
    const { log, lines } = recorder();
    const sub = join(dir, 'state');
    const file = join(sub, 'groups-1.jsonl');
    expect(() => new ProcessGroupRecord(file, owner, groups, log)).toThrow(/ENOENT/);
    mkdirSync(sub);
    const record = new ProcessGroupRecord(file, owner, groups, log);
    groups.observe(record);
    rmSync(sub, { recursive: true });
    groups.add({ pgid: 100, startTime: '1' });
    record.flush();
    groups.add({ pgid: 200, startTime: '2' });
    record.flush();
    expect(lines).toEqual([expect.stringMatching(/^error cannot write the process group record/)]);
    mkdirSync(sub);
    groups.remove(100);
    record.flush();
    expect(lines.at(-1)).toMatch(/^warn the process group record is written again/);
    expect(parseRecord(readFileSync(file, 'utf8'), () => {}).groups).toEqual([
      { pgid: 200, startTime: '2' },
    ]);
  });

  it('changes within the delay share one rewrite, written without a flush once it passes', async () => {
    const groups = new LiveProcessGroups();
    const { log } = recorder();
    const file = recordFile(dir, owner.pid);
    const record = new ProcessGroupRecord(file, owner, groups, log, 50);
    groups.observe(record);
    const read = () => parseRecord(readFileSync(file, 'utf8'), () => {}).groups.length;
    for (let pgid = 100; pgid < 1100; pgid++) groups.add({ pgid, startTime: '1' });
    expect(read()).toBe(0);
    await vi.waitFor(() => expect(read(), 'the delayed rewrite').toBe(1000), { timeout: 5000 });
    record.close();
  });
});
