import {
  awaitsAnswer,
  type BridgeClient,
  permissionRequest,
  type SessionEvent,
} from '@agent-bridge/bridgeclient';
import type { CtlIo } from './ctl-io.js';
import { promptPermission } from './permission-prompt.js';
import { EventRenderer, useColour } from './render-events.js';
import { createSpinner } from './spinner.js';
import { watchResolution } from './watch-resolution.js';

export interface FollowOptions {
  /** Resume after this seq (else the subscriber's cursor, else the oldest held). */
  afterSeq?: number;
  subscriberId?: string;
  /** One JSON object per line instead of the rendering. */
  json: boolean;
  /** Ends the stream after the event for which this returns true (else at the session's end). */
  until?: (e: SessionEvent) => boolean;
  /**
   * Ask the person at the terminal (io.readAnswer) to answer each permission
   * request that waits, and send the answer; without io.readAnswer, never.
   */
  promptPermissions?: boolean;
}

/** A renderer for `io`'s stdout, coloured when that is a terminal and NO_COLOR is unset. */
export const rendererFor = (io: CtlIo): EventRenderer =>
  new EventRenderer(io.stdout, { colour: useColour(io.stdoutIsTty, io.env) });

/**
 * Prints a session's events as they come, through the SDK's resumable stream
 * (it reconnects after a broken connection and resumes after the last event
 * shown). Returns the seq of the last event printed, undefined if none; a
 * Ctrl-C (io.signal) ends it quietly after the event being printed.
 */
export async function followEvents(
  client: BridgeClient,
  sessionId: string,
  io: CtlIo,
  opts: FollowOptions,
  renderer = rendererFor(io),
): Promise<number | undefined> {
  const spinner = createSpinner(io.stderr, io.stderrIsTty && !opts.json);
  const stream = client.events(sessionId, {
    ...(opts.afterSeq !== undefined ? { afterSeq: opts.afterSeq } : {}),
    ...(opts.subscriberId !== undefined ? { subscriberId: opts.subscriberId } : {}),
  });
  const onAbort = () => stream.close();
  io.signal?.addEventListener('abort', onAbort, { once: true });
  // Only until the first event: later it would overwrite the running text.
  spinner.start('waiting for events…');
  try {
    for await (const e of stream) {
      spinner.stop();
      if (opts.json) io.stdout(`${JSON.stringify(e)}\n`);
      else renderer.render(e);
      const request = opts.promptPermissions && !opts.json ? permissionRequest(e) : undefined;
      if (request && awaitsAnswer(request) && io.readAnswer) {
        renderer.endLine();
        // The stream waits meanwhile: what comes next is shown after the answer.
        await promptPermission(request, {
          readAnswer: io.readAnswer,
          respond: (decision) => client.respondPermission(sessionId, request.requestId, decision),
          watchResolution: (caughtUp, signal) => watchResolution(client, request, caughtUp, signal),
          write: io.stdout,
          ...(io.signal ? { signal: io.signal } : {}),
        });
      }
      if (opts.until?.(e)) stream.close();
    }
  } finally {
    io.signal?.removeEventListener('abort', onAbort);
    spinner.stop();
    renderer.endLine();
  }
  return stream.processedSeq;
}
