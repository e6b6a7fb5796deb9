import type { StartRequest } from '../types.js';

/**
 * True when two start requests ask for the same session: project,
 * provider, repository and every agent option alike (in any order). An
 * idempotent retry must match; anything else under the same id is refused.
 */
export function sameStart(a: StartRequest, b: StartRequest): boolean {
  if (a.projectId !== b.projectId || a.provider !== b.provider || a.repoPath !== b.repoPath) {
    return false;
  }
  const ka = Object.keys(a.agentOpts).sort();
  const kb = Object.keys(b.agentOpts).sort();
  return (
    ka.length === kb.length && ka.every((k, i) => k === kb[i] && a.agentOpts[k] === b.agentOpts[k])
  );
}
