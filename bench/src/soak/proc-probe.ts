import { readdirSync, readFileSync } from 'node:fs';

interface ProcEntry {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
  comm: string;
}

/** One pass over /proc: every process with its parent, group and state. */
function scanProcs(): ProcEntry[] {
  const out: ProcEntry[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const rest = stat.slice(close + 2).split(' ');
      out.push({
        pid: Number(d),
        comm: stat.slice(stat.indexOf('(') + 1, close),
        state: rest[0] ?? '?',
        ppid: Number(rest[1]),
        pgid: Number(rest[2]),
      });
    } catch {
      // The process ended between readdir and read.
    }
  }
  return out;
}

/** VmRSS of `pid` in MiB. */
export function rssMiB(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(m[1]) / 1024;
}

export const fdCount = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/**
 * What is still there of the agents: any live process in one of their
 * process groups (the agents were spawned as group leaders, so a grandchild
 * stays in the group), any live descendant of the daemon, and any zombie
 * the daemon has not reaped. A zombie in an agent group whose parent is not
 * the daemon (an orphaned grandchild) is left to whoever reaps orphans here,
 * so it is not the daemon's leftover.
 */
export function leftovers(
  daemonPid: number,
  agentGroups: ReadonlySet<number>,
  /** Descendants the daemon had before any session (tsx's esbuild service when run from source). */
  baseline: ReadonlySet<number> = new Set(),
): string[] {
  const procs = scanProcs();
  const found: string[] = [];
  const children = new Map<number, ProcEntry[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const seen = new Set<number>();
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      seen.add(c.pid);
      if (baseline.has(c.pid)) continue;
      found.push(
        c.state === 'Z'
          ? `zombie ${c.pid} (${c.comm}) of the daemon`
          : `daemon descendant ${c.pid} (${c.comm}) alive`,
      );
      walk(c.pid);
    }
  };
  walk(daemonPid);
  for (const p of procs) {
    if (seen.has(p.pid) || !agentGroups.has(p.pgid) || p.state === 'Z') continue;
    found.push(`process ${p.pid} (${p.comm}) alive in agent process group ${p.pgid}`);
  }
  return found;
}

/** Live descendants of `pid` now. */
export function descendantsOf(pid: number): Set<number> {
  const procs = scanProcs();
  const out = new Set<number>();
  const walk = (parent: number) => {
    for (const p of procs) {
      if (p.ppid === parent && p.state !== 'Z' && !out.has(p.pid)) {
        out.add(p.pid);
        walk(p.pid);
      }
    }
  };
  walk(pid);
  return out;
}
