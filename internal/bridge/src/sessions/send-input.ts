import { InputClosedError } from '@agent-bridge/providers';
import { invalid, precondition } from '../errors.js';
import type { Session } from './session.js';

const MAX_IDEMPOTENCY_KEY_BYTES = 128;

/**
 * Gives `text` to the session's agent and returns the seq of its
 * INPUT_RECEIVED. A key seen before returns that input's seq and sends
 * nothing; an input the agent cannot take leaves no trace.
 */
export function sendInput(
  s: Session,
  text: string,
  idempotencyKey: string,
  maxInputBytes: number,
): number {
  if (Buffer.byteLength(idempotencyKey, 'utf8') > MAX_IDEMPOTENCY_KEY_BYTES) {
    throw invalid(
      `idempotency_key must be at most ${MAX_IDEMPOTENCY_KEY_BYTES} bytes`,
      'idempotency_key_too_long',
    );
  }
  const seen = s.inputKeys.seqOf(idempotencyKey);
  if (seen !== undefined) return seen;
  if (text.length === 0) throw invalid('text must not be empty', 'input_empty');
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxInputBytes) {
    throw invalid(
      `text is ${bytes} bytes of UTF-8; the limit is ${maxInputBytes}`,
      'input_too_large',
    );
  }
  const agent = s.runningAgent();
  // The agent writes first, so a closed input leaves no trace, and calls
  // back before the turn is announced, so the input's seq comes first.
  let seq = 0;
  try {
    agent.send(text, () => {
      seq = s.record({ type: 'INPUT_RECEIVED', stream: 'system', text }).seq;
    });
  } catch (err) {
    if (err instanceof InputClosedError) {
      throw precondition(`session ${s.id}: ${err.message}`, 'input_closed', { cause: err });
    }
    throw err;
  }
  s.acceptedInput(idempotencyKey, seq);
  return seq;
}
