/**
 * Sends `signal` to the process group led by `pid` (a child spawned
 * detached, so its pid is its group id). Returns false when there is no
 * such group any more.
 */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): boolean {
  // Never -0 or -1: kill(0) and kill(-1) would signal the daemon's own group or everything.
  if (pid === undefined || !Number.isInteger(pid) || pid <= 1) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}
