import { readdirSync, readFileSync } from 'node:fs';

/** One line of the process table, from /proc/<pid>/stat. */
export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
}

function readProc(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: state ppid pgrp ...
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, state: rest[0]!, ppid: Number(rest[1]), pgid: Number(rest[2]) };
  } catch {
    return undefined;
  }
}

/** Every process on the machine, zombies included. */
export function allProcs(): ProcInfo[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((d) => readProc(Number(d)))
    .filter((p): p is ProcInfo => p !== undefined);
}

/** Live (non-zombie) processes in process group `pgid`. */
export function groupMembers(pgid: number): number[] {
  return allProcs()
    .filter((p) => p.pgid === pgid && p.state !== 'Z')
    .map((p) => p.pid);
}

/** Every live descendant of `pid`. */
export function descendants(pid: number): number[] {
  const procs = allProcs();
  const out: number[] = [];
  const walk = (parent: number) => {
    for (const p of procs) {
      if (p.ppid === parent && p.state !== 'Z') {
        out.push(p.pid);
        walk(p.pid);
      }
    }
  };
  walk(pid);
  return out;
}

/** The daemon's orphan watchdog (bin/orphan-watchdog.mjs): the child of `daemonPid` running it. */
export function watchdogOf(daemonPid: number): number | undefined {
  return descendants(daemonPid).find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('orphan-watchdog.mjs');
    } catch {
      return false;
    }
  });
}

/** The daemon's agents and their processes: its descendants but the orphan watchdog. */
export function agentProcesses(daemonPid: number): number[] {
  const watchdog = watchdogOf(daemonPid);
  return descendants(daemonPid).filter((pid) => pid !== watchdog);
}

export function isAlive(pid: number): boolean {
  const p = readProc(pid);
  return p !== undefined && p.state !== 'Z';
}
