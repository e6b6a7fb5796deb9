/**
 * NATS subjects of a fleet. Each session's events go to a subject of its
 * own, `<prefix>.events.<project>.<session>`, so a reader takes one
 * session's history by a filter, and NATS permissions can grant a fleet's
 * daemons `<prefix>.>` and nothing of another fleet's.
 *
 * A subject token may not hold `.`, `*`, `>` or white space, and is case
 * sensitive; ids outside [A-Za-z0-9_-] are written as `~` and their UTF-8
 * bytes in hex, so two different ids never share a token.
 */
export function subjectToken(id: string): string {
  if (id === '') throw new Error('an empty id has no subject token');
  if (/^[A-Za-z0-9_-]+$/.test(id)) return id;
  return `~${Buffer.from(id, 'utf8').toString('hex')}`;
}

/**
 * A KV key for an id: the id itself when it is [A-Za-z0-9_-], else `=` and
 * its UTF-8 bytes in hex (KV keys allow no `~`, so not `subjectToken`).
 */
export function kvKey(id: string): string {
  if (id === '') throw new Error('an empty id has no KV key');
  if (/^[A-Za-z0-9_-]+$/.test(id)) return id;
  return `=${Buffer.from(id, 'utf8').toString('hex')}`;
}

/** The fleet's prefix (`bridge.<fleet>`), from a fleet name that is itself one token. */
export function fleetPrefix(fleet: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(fleet)) {
    throw new Error(`fleet name "${fleet}" must be 1 to 64 of A-Z a-z 0-9 _ -`);
  }
  return `bridge.${fleet}`;
}

export function sessionSubject(prefix: string, projectId: string, sessionId: string): string {
  return `${prefix}.events.${subjectToken(projectId)}.${subjectToken(sessionId)}`;
}

/**
 * The id JetStream deduplicates a publish by: a retry after a lost
 * acknowledgement names the same events, so they are stored once.
 */
export function eventMsgId(sessionId: string, first: number, last = first): string {
  return first === last ? `${sessionId}:${first}` : `${sessionId}:${first}-${last}`;
}
