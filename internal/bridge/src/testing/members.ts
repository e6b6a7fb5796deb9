import type { Member } from '../collaboration/collab-types.js';

/** A live session of a project as collaboration sees it, for tests. */
export const member = (sessionId: string, name: string, role: string): Member => ({
  sessionId,
  name,
  role,
  provider: 'mock',
  repoPath: '/repo',
  status: 'RUNNING',
  lastActivityAt: 0,
});
