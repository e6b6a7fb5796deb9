import {
  DeadlineExceededError,
  NotFoundError,
  type SessionStatus,
  UnavailableError,
} from '@agent-bridge/bridgeclient';
import type { ConsoleTarget, ListedSession } from './console-target.js';
import { HttpError } from './http-replies.js';

/** The most sessions whose project is remembered (the oldest forgotten first). */
const REMEMBERED = 10_000;

/**
 * The projects a console shows, each with the daemon or fleet it calls as
 * that project (a token names one project: each has its own client). The
 * first is the console's own: the one a page starts in.
 */
export class ProjectTargets {
  private readonly targets: ReadonlyMap<string, ConsoleTarget>;
  /** Which project each session met so far belongs to. */
  private readonly projectOf = new Map<string, string>();

  constructor(targets: ReadonlyMap<string, ConsoleTarget>) {
    if (targets.size === 0) throw new TypeError('a console shows one project at least');
    this.targets = targets;
  }

  /** The projects' ids, the console's own first. */
  get ids(): string[] {
    return [...this.targets.keys()];
  }

  entries(): IterableIterator<[string, ConsoleTarget]> {
    return this.targets.entries();
  }

  /** The target of project `id` ('' or null: the first); a 400 naming the projects for another. */
  of(id: string | null | undefined): ConsoleTarget {
    const project = id || (this.ids[0] as string);
    const target = this.targets.get(project);
    if (!target) {
      throw new HttpError(
        400,
        `this console shows the projects ${this.ids.join(', ')}, not "${id}"`,
      );
    }
    return target;
  }

  /** Notes that `sessionId` is of `project` (it was listed or started there). */
  remember(sessionId: string, project: string): void {
    this.projectOf.delete(sessionId);
    this.projectOf.set(sessionId, project);
    if (this.projectOf.size > REMEMBERED) {
      this.projectOf.delete(this.projectOf.keys().next().value as string);
    }
  }

  /**
   * The target of the project `sessionId` belongs to: remembered, else
   * asked of each project in turn (another project's session is NOT_FOUND
   * to a token, as a missing one is). NOT_FOUND when none has it; when one
   * could not tell (a daemon away), its failure.
   */
  async forSession(sessionId: string): Promise<ConsoleTarget> {
    const known = this.projectOf.get(sessionId);
    if (known !== undefined) return this.of(known);
    if (this.targets.size === 1) return this.of('');
    // A project whose daemons do not all answer may still not hold it: the others are asked.
    let away: unknown;
    for (const [project, target] of this.targets) {
      try {
        await target.calls.getSession(sessionId);
        this.remember(sessionId, project);
        return target;
      } catch (err) {
        if (err instanceof UnavailableError || err instanceof DeadlineExceededError) away ??= err;
        else if (!(err instanceof NotFoundError)) throw err;
      }
    }
    if (away !== undefined) throw away;
    throw new HttpError(404, `no project of this console has session ${sessionId}`);
  }

  /**
   * A page of sessions of `project` ('': of every project, one after the
   * other, a page filled from the next project when one runs out; the page
   * token says which project it goes on in).
   */
  async list(
    project: string,
    q: { statuses: SessionStatus[]; provider: string; pageSize: number; pageToken: string },
  ) {
    if (project !== '') {
      const page = await this.of(project).listSessions(q);
      for (const s of page.sessions) this.remember(s.sessionId, project);
      return page;
    }
    const m = /^(\d+)~(.*)$/.exec(q.pageToken);
    let at = Number(m?.[1] ?? 0);
    let token = m?.[2] ?? '';
    if ((q.pageToken !== '' && !m) || at >= this.ids.length) {
      throw new HttpError(400, 'page is a token the sessions list gave, not one of your own');
    }
    // A page is filled from the next project when one runs out.
    const sessions: ListedSession[] = [];
    const unreachable: string[] = [];
    for (;;) {
      const id = this.ids[at] as string;
      const page = await this.of(id).listSessions({
        ...q,
        pageSize: q.pageSize - sessions.length,
        pageToken: token,
      });
      for (const s of page.sessions) this.remember(s.sessionId, id);
      sessions.push(...page.sessions);
      unreachable.push(...page.unreachable);
      const last = at + 1 >= this.ids.length;
      if (page.nextPageToken !== '' || sessions.length >= q.pageSize || last) {
        const nextPageToken =
          page.nextPageToken !== '' ? `${at}~${page.nextPageToken}` : last ? '' : `${at + 1}~`;
        return { sessions, nextPageToken, unreachable: [...new Set(unreachable)] };
      }
      at++;
      token = '';
    }
  }
}
