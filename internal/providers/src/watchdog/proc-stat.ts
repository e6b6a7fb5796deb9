import { readdirSync, readFileSync } from 'node:fs';

/** What /proc/<pid>/stat says about a process that matters for killing its group. */
export interface ProcStat {
  /** One letter: R, S, D, Z (zombie), ... */
  state: string;
  /** The process group id (field 5). */
  pgrp: number;
  /**
   * When the process started, in clock ticks since boot (field 22), kept as
   * text: together with the pid it names one process for the whole boot,
   * so a reused pid is told apart from the process recorded.
   */
  startTime: string;
}

/** Reads /proc/<pid>/stat; undefined when there is no such process (or no /proc). */
export function readProcStat(pid: number): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: fields are
  // counted from the last ")". rest[0] is field 3.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = rest[0];
  const pgrp = Number(rest[2]);
  const startTime = rest[19];
  if (!state || !Number.isInteger(pgrp) || !startTime || !/^\d+$/.test(startTime)) return undefined;
  return { state, pgrp, startTime };
}

/** The leader's start time, as recorded for its process group; undefined when it is gone. */
export function readStartTime(pid: number): string | undefined {
  return readProcStat(pid)?.startTime;
}

/** Live (not zombie) processes whose process group is `pgid`. */
export function groupMembers(pgid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const st = readProcStat(Number(name));
    if (st && st.pgrp === pgid && st.state !== 'Z') out.push(Number(name));
  }
  return out;
}

/** This boot's id: records from another boot name processes that no longer exist. */
export function readBootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}
