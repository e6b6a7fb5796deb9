/** One second of the soak, as the sampler saw it. */
export interface Sample {
  /** Seconds since the workload began. */
  t: number;
  rssMiB: number;
  fds: number;
  heapUsedMiB: number;
  /** The daemon's event-loop delay over the last scrape interval (prom-client's histogram). */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  activeHandles: number;
  /** Starting, running and stopping sessions, as the daemon counts them. */
  liveSessions: number;
  subscribers: number;
  /** Events the workload's readers received per second since the previous sample. */
  eventsPerSec: number;
  /** Major (mark-compact) collections the daemon has run so far. */
  majorGcs: number;
  /** The daemon's CPU use since the previous sample (100 = one core). */
  cpuPercent: number;
}

/** The daemon at rest: before the workload, and after everything was stopped. */
export interface IdlePoint {
  fds: number;
  activeHandles: number;
  rssMiB: number;
  heapUsedMiB: number;
}
