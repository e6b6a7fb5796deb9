import { NotFoundError, PermissionDeniedError, UnavailableError } from '@agent-bridge/bridgeclient';
import { describe, expect, it } from 'vitest';
import type { ConsoleTarget } from './console-target.js';
import { HttpError } from './http-replies.js';
import { ProjectTargets } from './project-targets.js';

/** A project's daemon holding `ids`, listed `pageSize` at a time (tokens are offsets), asked by id. */
function holding(ids: string[], asked: string[] = []): ConsoleTarget {
  const session = (sessionId: string) => ({ sessionId, provider: 'mock' });
  return {
    calls: {
      getSession: async (id: string) => {
        asked.push(id);
        if (!ids.includes(id)) throw new NotFoundError('NOT_FOUND', `session ${id} not found`);
        return session(id);
      },
    },
    listSessions: async (q: { pageSize: number; pageToken: string }) => {
      const from = Number(q.pageToken || 0);
      const end = from + q.pageSize;
      return {
        sessions: ids.slice(from, end).map(session),
        nextPageToken: end < ids.length ? String(end) : '',
        unreachable: [],
      };
    },
  } as unknown as ConsoleTarget;
}

const q = (pageToken = '', pageSize = 2) => ({ statuses: [], provider: '', pageSize, pageToken });

async function everyPage(p: ProjectTargets, project: string, pageSize = 2) {
  const pages: string[][] = [];
  let token = '';
  do {
    const page = await p.list(project, q(token, pageSize));
    pages.push(page.sessions.map((s) => s.sessionId));
    token = page.nextPageToken;
  } while (token !== '' && pages.length < 20);
  return pages;
}

describe('ProjectTargets', () => {
  it('lists every project one after the other, a page filled from the next when one runs out', async () => {
    const p = new ProjectTargets(
      new Map([
        ['alpha', holding(['a1', 'a2', 'a3'])],
        ['empty', holding([])],
        ['beta', holding(['b1'])],
      ]),
    );
    expect(await everyPage(p, '')).toEqual([
      ['a1', 'a2'],
      ['a3', 'b1'],
    ]);
    expect(await everyPage(p, 'beta')).toEqual([['b1']]);
    expect(await everyPage(p, '', 10)).toEqual([['a1', 'a2', 'a3', 'b1']]);
    expect(await everyPage(p, '', 1)).toEqual([['a1'], ['a2'], ['a3'], ['b1']]);
  });

  it('refuses a page token it did not give, and a project it does not show', async () => {
    const p = new ProjectTargets(new Map([['alpha', holding(['a1'])]]));
    for (const token of ['7', '1~', 'x~0']) {
      await expect(p.list('', q(token))).rejects.toThrow(
        new HttpError(400, 'page is a token the sessions list gave, not one of your own'),
      );
    }
    expect(() => p.of('gamma')).toThrow(
      new HttpError(400, 'this console shows the projects alpha, not "gamma"'),
    );
  });

  it('finds the project of a session: remembered when listed or started, else asked of each', async () => {
    const asked: string[] = [];
    const alpha = holding(['a1'], asked);
    const beta = holding(['b1', 'b2'], asked);
    const p = new ProjectTargets(
      new Map([
        ['alpha', alpha],
        ['beta', beta],
      ]),
    );
    expect(await p.forSession('b1')).toBe(beta);
    expect(asked).toEqual(['b1', 'b1']); // alpha said NOT_FOUND, beta had it
    asked.length = 0;
    expect(await p.forSession('b1')).toBe(beta);
    await p.list('beta', q());
    expect(await p.forSession('b2')).toBe(beta);
    p.remember('new', 'alpha');
    expect(await p.forSession('new')).toBe(alpha);
    expect(asked).toEqual([]);
    await expect(p.forSession('nowhere')).rejects.toThrow(
      new HttpError(404, 'no project of this console has session nowhere'),
    );
  });

  it('asks the other projects when one cannot tell (a daemon away), and passes on other failures', async () => {
    const failing = (err: Error) =>
      ({
        calls: {
          getSession: async () => {
            throw err;
          },
        },
      }) as unknown as ConsoleTarget;
    const away = new UnavailableError('UNAVAILABLE', 'daemon away');
    const beta = holding(['b1']);
    const p = new ProjectTargets(
      new Map([
        ['alpha', failing(away)],
        ['beta', beta],
      ]),
    );
    expect(await p.forSession('b1')).toBe(beta);
    // Nobody has it, but alpha could not tell: its failure, not a NOT_FOUND.
    await expect(p.forSession('nowhere')).rejects.toBe(away);
    const refused = new PermissionDeniedError('PERMISSION_DENIED', 'no');
    const q2 = new ProjectTargets(
      new Map([
        ['alpha', failing(refused)],
        ['beta', beta],
      ]),
    );
    await expect(q2.forSession('b1')).rejects.toBe(refused);
  });
});
