import { signalGroup } from '../process/process-group.js';
import { groupMembers, readProcStat } from './proc-stat.js';

/** A process group the daemon started: its id (the leader's pid) and the leader's start time. */
export interface RecordedGroup {
  pgid: number;
  /** Field 22 of the leader's /proc/<pid>/stat when it was spawned. */
  startTime: string;
  /** The session the group served, for the log; absent for processes of no session. */
  sessionId?: string;
}

/**
 * Whether `group` is still the group that was recorded. The leader alive
 * with the recorded start time: yes; alive with another start time: its pid
 * was reused, so the recorded group is long gone (the kernel never hands out
 * a pid still in use as a group id). The leader gone but members left: the
 * group lives on, and its id cannot have been reused while it did.
 */
function isSameGroup(group: RecordedGroup): boolean {
  const leader = readProcStat(group.pgid);
  if (leader) return leader.startTime === group.startTime;
  return groupMembers(group.pgid).length > 0;
}

/** SIGKILLs `group` if it is still the one recorded. Returns whether it was ended. */
export function killRecordedGroup(group: RecordedGroup): boolean {
  // Never the daemon's own group, whatever a record says.
  if (group.pgid === process.pid || group.pgid === readProcStat(process.pid)?.pgrp) return false;
  if (!isSameGroup(group)) return false;
  return signalGroup(group.pgid, 'SIGKILL');
}
