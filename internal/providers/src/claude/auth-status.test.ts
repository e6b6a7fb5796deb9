import { describe, expect, it } from 'vitest';
import { interpretAuthStatus } from './auth-status.js';

describe('interpretAuthStatus', () => {
  it('reads the JSON of claude auth status (real 2.1.197 output)', () => {
    expect(
      interpretAuthStatus({
        ok: false,
        output: '{"loggedIn":false,"authMethod":"none","apiProvider":"firstParty"}',
      }),
    ).toEqual({ state: 'unauthenticated', detail: 'not logged in (claude auth status)' });
    expect(
      interpretAuthStatus({
        ok: true,
        output: '{"loggedIn":true,"authMethod":"api_key","apiProvider":"firstParty"}',
      }),
    ).toEqual({
      state: 'authenticated',
      detail: 'credentials configured (api_key); not validated',
    });
  });

  it('is unknown, with the first line, when the output is not the JSON', () => {
    expect(interpretAuthStatus({ ok: false, output: "error: unknown command 'auth'" })).toEqual({
      state: 'unknown',
      detail: "claude auth status failed: error: unknown command 'auth'",
    });
  });
});
