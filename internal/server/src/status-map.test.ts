import { AuthError } from '@agent-bridge/auth';
import { BridgeError, createRedactor } from '@agent-bridge/bridge';
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { toServiceError } from './status-map.js';

const KEY = `sk-ant-api03-${'Hn4'.repeat(20)}`;
const redact = createRedactor([/order-\d{4,12}/g]);

describe('toServiceError', () => {
  it('redacts every message it returns, with the built-in and the configured rules', () => {
    const bridge = toServiceError(
      new BridgeError('invalid_argument', `repo_path "/r/${KEY}" for order-123456`),
      redact,
    );
    expect(bridge).toEqual({
      code: status.INVALID_ARGUMENT,
      details: 'repo_path "/r/[REDACTED]" for [REDACTED]',
    });
    const auth = toServiceError(new AuthError('token_malformed', `bad token ${KEY}`), redact);
    expect(auth.details).toBe('bad token [REDACTED]');
  });

  it("shows an AuthError's message only, never what caused it", () => {
    const cause = new Error(`jose saw ${KEY} in token abc.def.ghi`);
    const auth = toServiceError(
      new AuthError('signature_invalid', 'token signature is invalid', { cause }),
      redact,
    );
    expect(auth).toEqual({ code: status.UNAUTHENTICATED, details: 'token signature is invalid' });
  });

  it('never shows the message of an unexpected error', () => {
    expect(toServiceError(new Error(`boom ${KEY}`), redact)).toEqual({
      code: status.INTERNAL,
      details: 'internal error',
    });
  });
});
