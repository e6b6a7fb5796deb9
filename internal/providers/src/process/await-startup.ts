import { StartupError } from '../contract/errors.js';
import type { SupervisedProcess } from './supervised-process.js';

/**
 * Waits until `ready` resolves: the agent came up. Fails start-up, killing
 * the agent where it still runs, when `ready` rejects, when the agent exits
 * first (with the end of its stderr, which usually says why) or when
 * `signal` aborts (the startup timeout, a stop, shutdown). `awaited`
 * completes "the agent did not … before its start-up was abandoned".
 */
export async function awaitStartup(
  proc: SupervisedProcess,
  ready: Promise<unknown>,
  signal: AbortSignal,
  awaited: string,
): Promise<void> {
  const aborted = new Promise<'aborted'>((resolve) => {
    if (signal.aborted) resolve('aborted');
    signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  let outcome: Awaited<typeof proc.exited> | 'ready' | 'aborted' | Error;
  try {
    outcome = await Promise.race([ready.then(() => 'ready' as const), proc.exited, aborted]);
  } catch (err) {
    outcome = err instanceof Error ? err : new Error(String(err));
  }
  if (outcome === 'ready') return;
  if (outcome instanceof Error || outcome === 'aborted') {
    await proc.stop({ force: true, gracePeriodMs: 0 });
  }
  if (outcome === 'aborted') {
    throw new StartupError(`the agent did not ${awaited} before its start-up was abandoned`);
  }
  if (outcome instanceof Error) {
    throw new StartupError(`agent start-up failed: ${outcome.message}`, { cause: outcome });
  }
  const how = outcome.signal ? `signal ${outcome.signal}` : `code ${outcome.exitCode}`;
  throw new StartupError(`agent exited during start-up (${how})`, { exit: outcome });
}
