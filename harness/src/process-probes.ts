import { readdirSync, readFileSync } from 'node:fs';
import { allProcs, type ProcInfo } from './processes.js';

/** Open file descriptors of `pid` (`ls /proc/<pid>/fd | wc -l`). */
export function fdCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Resident set size of `pid` in KiB (VmRSS of /proc/<pid>/status). */
export function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]);
}

/**
 * Zombies among the descendants of `pid`: children that exited and were
 * never reaped by their parent. A daemon that reaps its agents leaves none.
 */
export function zombiesUnder(pid: number): ProcInfo[] {
  const procs = allProcs();
  const out: ProcInfo[] = [];
  const walk = (parent: number) => {
    for (const p of procs) {
      if (p.ppid !== parent) continue;
      if (p.state === 'Z') out.push(p);
      else walk(p.pid);
    }
  };
  walk(pid);
  return out;
}

/**
 * The process groups among `pgids` that still have a live member (`pgrep -g`),
 * each with its members. Agents lead their own group, so a session's pid is
 * its group id.
 */
export function leftoverGroups(pgids: Iterable<number>): Map<number, number[]> {
  const wanted = new Set(pgids);
  const out = new Map<number, number[]>();
  for (const p of allProcs()) {
    if (!wanted.has(p.pgid) || p.state === 'Z') continue;
    out.set(p.pgid, [...(out.get(p.pgid) ?? []), p.pid]);
  }
  return out;
}

/** `leftoverGroups` for a failure message. */
export const showGroups = (groups: Map<number, number[]>) =>
  [...groups].map(([g, pids]) => `group ${g}: ${pids.join(' ')}`).join('; ') || 'none';
