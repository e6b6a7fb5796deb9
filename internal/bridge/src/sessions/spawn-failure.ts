import type { SpawnError } from '@agent-bridge/providers';
import { type BridgeError, exhausted, precondition } from '../errors.js';

/** errno codes that mean the daemon, not the agent's binary, ran out of something. */
const OUT_OF_DESCRIPTORS = new Set(['EMFILE', 'ENFILE']);

/**
 * What a caller is told when an agent could not be spawned. A binary that
 * cannot run is the caller's (or the operator's) precondition to fix; a
 * daemon out of file descriptors is a resource that frees up as sessions
 * end, so it is RESOURCE_EXHAUSTED and worth retrying later.
 */
export function spawnFailure(err: SpawnError): BridgeError {
  if (err.code !== undefined && OUT_OF_DESCRIPTORS.has(err.code)) {
    return exhausted(
      `the daemon is out of file descriptors (${err.code}): cannot start another agent until sessions end`,
      'too_many_open_files',
      undefined,
      { cause: err },
    );
  }
  return precondition(err.message, 'spawn_failed', { cause: err });
}
