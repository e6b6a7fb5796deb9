#!/usr/bin/env node
// The daemon's orphan watchdog: one per daemon, no dependencies. The daemon
// writes on our stdin each process group it starts ("+<pgid> <starttime>")
// and each one that is gone ("-<pgid>"). Only the daemon holds the other end
// of the pipe, so end of input means the daemon is gone, however it died:
// then every group still listed is SIGKILLed, if it is still the group that
// was recorded, and we exit. The logic mirrors src/recorded-group.ts, which
// cannot be imported here: this file runs as it is, from source and installed.
import { readdirSync, readFileSync } from 'node:fs';

// Signals a terminal or a service manager sends to the daemon's group must
// not end the one process meant to outlive the daemon. We exit at end of input.
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => {});

/** pgid → the leader's start time (field 22 of /proc/<pid>/stat). */
const groups = new Map();

function stat(pid) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: rest[0], pgrp: Number(rest[2]), startTime: rest[19] };
}

function hasMembers(pgid) {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const st = stat(name);
    if (st && st.pgrp === pgid && st.state !== 'Z') return true;
  }
  return false;
}

// A live leader with another start time is a reused pid: the recorded group
// is gone. No leader but members left: the group lives on, and its id
// cannot have been reused meanwhile.
function isSameGroup(pgid, startTime) {
  const leader = stat(pgid);
  return leader ? leader.startTime === startTime : hasMembers(pgid);
}

function onLine(line) {
  const add = /^\+(\d+) (\d+)$/.exec(line);
  if (add) {
    const pgid = Number(add[1]);
    if (pgid > 1 && pgid !== process.pid) groups.set(pgid, add[2]);
    return;
  }
  const remove = /^-(\d+)$/.exec(line);
  if (remove) groups.delete(Number(remove[1]));
}

function endAll() {
  const ended = [];
  for (const [pgid, startTime] of groups) {
    if (!isSameGroup(pgid, startTime)) continue;
    try {
      process.kill(-pgid, 'SIGKILL');
      ended.push(pgid);
    } catch {
      // Gone between the check and the kill.
    }
  }
  if (ended.length > 0) {
    // Shaped like the daemon's JSON log lines, to the same stderr.
    process.stderr.write(
      `${JSON.stringify({
        level: 40,
        time: Date.now(),
        svc: 'bridge',
        component: 'orphan-watchdog',
        pgids: ended,
        msg: `the daemon is gone: ended ${ended.length} process group(s) of its agents: ${ended.join(', ')}`,
      })}\n`,
    );
  }
  process.exit(0);
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) onLine(line);
});
process.stdin.on('end', endAll);
process.stdin.on('error', endAll);
