import { readdirSync, readFileSync } from 'node:fs';

interface ProcInfo {
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

function allProcs(): ProcInfo[] {
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

export function isAlive(pid: number): boolean {
  const p = readProc(pid);
  return p !== undefined && p.state !== 'Z';
}

/** Polls `fn` until it returns true or `timeoutMs` passes. */
export async function waitFor(
  fn: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  everyMs = 25,
): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await fn()) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return fn();
}

/** Resident set size of `pid` in KiB. */
export function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}
