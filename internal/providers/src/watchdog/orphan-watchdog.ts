import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { GroupObserver, LiveProcessGroups } from './live-process-groups.js';
import type { RecordedGroup } from './recorded-group.js';
import type { SupervisionLog } from './supervision-log.js';

/** bin/ sits beside src/ and dist/ alike, so this resolves from source and installed. */
const WATCHDOG_SCRIPT = fileURLToPath(new URL('../../bin/orphan-watchdog.mjs', import.meta.url));

/** A watchdog that dies is replaced after this pause, so a broken one cannot spin. */
const RESTART_DELAY_MS = 1000;

/**
 * The daemon's side of the orphan watchdog (bin/orphan-watchdog.mjs): a
 * small process that SIGKILLs every live agent process group once the
 * daemon is gone, however it died (Node has no parent-death signal). It is
 * told each group as it starts and ends; it runs in a session of its own,
 * so a terminal's SIGINT or SIGHUP to the daemon's group misses it, and
 * holds the event loop open neither by its process nor by its pipe. If it
 * dies while the daemon lives, a new one is started and told the live groups.
 */
export class OrphanWatchdog implements GroupObserver {
  private child: ChildProcess | undefined;
  private closed = false;
  private restartTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly groups: LiveProcessGroups,
    private readonly log: SupervisionLog,
  ) {}

  /** Starts the watchdog and subscribes it to `groups`. */
  static start(opts: { groups: LiveProcessGroups; log: SupervisionLog }): OrphanWatchdog {
    const w = new OrphanWatchdog(opts.groups, opts.log);
    w.launch();
    opts.groups.observe(w);
    return w;
  }

  /** The running watchdog's pid; undefined between a death and its replacement. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  added(group: RecordedGroup): void {
    this.send(`+${group.pgid} ${group.startTime}\n`);
  }

  removed(pgid: number): void {
    this.send(`-${pgid}\n`);
  }

  /**
   * After a clean stop: ends the watchdog's input, so it exits (ending any
   * group still listed, which a clean stop leaves none of).
   */
  close(): void {
    this.closed = true;
    clearTimeout(this.restartTimer);
    this.child?.stdin?.end();
  }

  private launch(): void {
    // No inherited environment: nothing of the daemon's secrets or NODE_OPTIONS.
    const child = spawn(process.execPath, [WATCHDOG_SCRIPT], {
      detached: true,
      env: {},
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    this.child = child;
    child.unref();
    (child.stdin as Socket | null)?.unref();
    // EPIPE once it has died: the exit handler replaces it and replays.
    child.stdin?.on('error', () => {});
    child.once('error', (err) => this.lost(child, `cannot run: ${err.message}`));
    child.once('exit', (code, signal) =>
      this.lost(child, signal ? `killed by ${signal}` : `exited with code ${code}`),
    );
    for (const g of this.groups.list()) this.added(g);
  }

  private lost(child: ChildProcess, how: string): void {
    if (this.child !== child) return; // 'error' and 'exit' both came
    this.child = undefined;
    if (this.closed) return;
    this.log.error(`the orphan watchdog ${how}: starting a new one`, { pid: child.pid });
    this.restartTimer = setTimeout(() => {
      if (!this.closed) this.launch();
    }, RESTART_DELAY_MS);
    this.restartTimer.unref();
  }

  private send(line: string): void {
    const stdin = this.child?.stdin;
    if (stdin && !stdin.destroyed) stdin.write(line);
  }
}
