import type {
  BridgeClient,
  PermissionRequest,
  PermissionResolution,
} from '@agent-bridge/bridgeclient';
import { permissionResolution } from '@agent-bridge/bridgeclient';

/**
 * Reads the session's events after `request` on a second stream until its
 * PERMISSION_RESOLVED: the main stream is held while a person is asked, so
 * this is how the prompt learns that someone else (or the timeout) answered.
 */
export async function watchResolution(
  client: BridgeClient,
  request: PermissionRequest,
  caughtUp: () => void,
  signal: AbortSignal,
): Promise<PermissionResolution | undefined> {
  const { lastSeq } = await client.getSession(request.sessionId, { signal });
  if (lastSeq <= request.seq) caughtUp();
  const stream = client.events(request.sessionId, { afterSeq: request.seq });
  const close = () => stream.close();
  signal.addEventListener('abort', close, { once: true });
  try {
    if (signal.aborted) return undefined;
    for await (const e of stream) {
      const resolution = permissionResolution(e);
      if (resolution?.requestId === request.requestId) return resolution;
      if (e.seq >= lastSeq) caughtUp();
    }
    return undefined;
  } finally {
    signal.removeEventListener('abort', close);
    stream.close();
  }
}
