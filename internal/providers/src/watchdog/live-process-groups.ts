import type { Spawner } from '../process/supervised-process.js';
import { readStartTime } from './proc-stat.js';
import type { RecordedGroup } from './recorded-group.js';

/** Someone who must know each live group: the watchdog, the record on disk. */
export interface GroupObserver {
  added(group: RecordedGroup): void;
  removed(pgid: number): void;
}

/**
 * The process groups of the agents this daemon has running, from spawn to
 * exit, told to every observer. Observers that start late (a restarted
 * watchdog) replay `list()`.
 */
export class LiveProcessGroups {
  private readonly groups = new Map<number, RecordedGroup>();
  private readonly observers: GroupObserver[] = [];

  observe(observer: GroupObserver): void {
    this.observers.push(observer);
  }

  list(): RecordedGroup[] {
    return [...this.groups.values()];
  }

  add(group: RecordedGroup): void {
    this.groups.set(group.pgid, group);
    for (const o of this.observers) o.added(group);
  }

  remove(pgid: number): void {
    if (!this.groups.delete(pgid)) return;
    for (const o of this.observers) o.removed(pgid);
  }
}

/**
 * Wraps a spawner so that every process group it starts is in `groups`
 * from the moment the pid exists until the process and its group are gone.
 */
export function trackingSpawner(spawn: Spawner, groups: LiveProcessGroups): Spawner {
  return async (opts) => {
    let pgid: number | undefined;
    const proc = await spawn({
      ...opts,
      onSpawn: (pid) => {
        // Read before anything can reap the child: the event loop has not run since the fork.
        const startTime = readStartTime(pid);
        if (startTime !== undefined) {
          pgid = pid;
          groups.add({
            pgid: pid,
            startTime,
            ...(opts.sessionId === undefined ? {} : { sessionId: opts.sessionId }),
          });
        }
        opts.onSpawn?.(pid);
      },
    });
    // exited resolves after the group was SIGKILLed and the output drained.
    const forget = () => {
      if (pgid !== undefined) groups.remove(pgid);
    };
    proc.exited.then(forget, forget);
    return proc;
  };
}
