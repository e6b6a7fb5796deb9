import { denied, invalid } from '../errors.js';
import type { Caller, SessionSnapshot, SessionStatus } from '../types.js';
import { preview } from '../validate.js';
import { decodePageToken, encodePageToken } from './page-token.js';

export interface ListFilter {
  projectId: string;
  /** Empty matches every status. */
  statuses: SessionStatus[];
  /** 0 asks for the default size. */
  pageSize: number;
  pageToken: string;
}

export interface SessionPage {
  sessions: SessionSnapshot[];
  /** Empty on the last page. */
  nextPageToken: string;
}

/** What a listing reads of a session: the daemon's own, or a lost one of its fleet. */
export interface Listable {
  readonly id: string;
  readonly projectId: string;
  readonly createdAt: number;
  snapshot(): SessionSnapshot;
}

const MAX_PAGE_SIZE = 1000;
const DEFAULT_PAGE_SIZE = 100;

/**
 * One page of a project's sessions, newest first. Ties are broken by id so
 * the order is total: a page token (the last position, bound to the status
 * filter it was issued for) resumes exactly after the previous page, even
 * while sessions come and go.
 */
export function listSessions(
  sessions: Iterable<Listable>,
  caller: Caller,
  filter: ListFilter,
): SessionPage {
  // A filter names the caller's project or none: no listing of another's.
  if (filter.projectId !== '' && filter.projectId !== caller.projectId) {
    throw denied(
      `the token is not valid for project ${preview(filter.projectId)}`,
      'project_mismatch',
    );
  }
  const { projectId } = caller;
  if (filter.pageSize > MAX_PAGE_SIZE)
    throw invalid(`page_size must be at most ${MAX_PAGE_SIZE}`, 'page_size_too_large');
  const size = filter.pageSize || DEFAULT_PAGE_SIZE;
  const filterKey = [...new Set(filter.statuses)].sort().join(',');
  const after = filter.pageToken ? decodePageToken(filter.pageToken, filterKey) : undefined;
  const statuses = new Set(filter.statuses);
  const matching = [...sessions]
    .filter(
      (s) =>
        s.projectId === projectId && (statuses.size === 0 || statuses.has(s.snapshot().status)),
    )
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1))
    .filter(
      (s) =>
        !after ||
        s.createdAt < after.createdAt ||
        (s.createdAt === after.createdAt && s.id > after.id),
    );
  const page = matching.slice(0, size);
  const last = page[page.length - 1];
  return {
    sessions: page.map((s) => s.snapshot()),
    nextPageToken:
      matching.length > size && last
        ? encodePageToken({ createdAt: last.createdAt, id: last.id }, filterKey)
        : '',
  };
}
