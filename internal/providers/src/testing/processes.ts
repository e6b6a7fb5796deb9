import { readFileSync } from 'node:fs';

/** Whether `pid` is a live process (not gone, not a zombie nobody reaped yet). */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
