import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { RequestGuard } from './request-guard.js';

const PORT = 4321;
const req = (headers: Record<string, string>) =>
  ({ headers: { host: `127.0.0.1:${PORT}`, ...headers } }) as unknown as IncomingMessage;

function signedIn(): { guard: RequestGuard; cookie: string; csrf: string } {
  const guard = new RequestGuard(PORT);
  const signIn = guard.signInWith(guard.signInToken ?? '');
  if (!('cookie' in signIn)) throw new Error('sign-in refused');
  const cookie = signIn.cookie.split(';')[0] as string;
  const session = guard.signedIn(req({ cookie }));
  if (!('csrf' in session)) throw new Error('no session');
  return { guard, cookie, csrf: session.csrf };
}

describe('the console request guard', () => {
  it('sets an HttpOnly SameSite=Strict cookie for the sign-in token, once', () => {
    const guard = new RequestGuard(PORT);
    const token = guard.signInToken as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(guard.signInWith('wrong')).toMatchObject({ status: 403 });
    const first = guard.signInWith(token);
    expect(first).toMatchObject({
      cookie: expect.stringMatching(/; HttpOnly; SameSite=Strict; Path=\/$/),
    });
    expect(guard.signInWith(token)).toMatchObject({
      status: 403,
      message: expect.stringContaining('works once'),
    });
    expect(guard.signInToken).toBeUndefined();
  });

  it('answers to its own host and origin only', () => {
    const guard = new RequestGuard(PORT);
    expect(guard.checkSite(req({}))).toBeUndefined();
    expect(
      guard.checkSite(req({ host: `localhost:${PORT}`, origin: `http://localhost:${PORT}` })),
    ).toBeUndefined();
    expect(guard.checkSite(req({ host: `attacker.example:${PORT}` }))).toMatchObject({
      status: 421,
    });
    expect(guard.checkSite(req({ host: '127.0.0.1:1' }))).toMatchObject({ status: 421 });
    expect(guard.checkSite(req({ origin: 'http://attacker.example' }))).toMatchObject({
      status: 403,
    });
    expect(guard.checkSite(req({ origin: `https://127.0.0.1:${PORT}` }))).toMatchObject({
      status: 403,
    });
    expect(guard.checkSite(req({ 'sec-fetch-site': 'cross-site' }))).toMatchObject({ status: 403 });
  });

  it('lets a change through only with the cookie, its origin and the CSRF token', () => {
    const { guard, cookie, csrf } = signedIn();
    const origin = `http://127.0.0.1:${PORT}`;
    expect(guard.mayChange(req({ cookie, origin, 'x-csrf-token': csrf }))).toBeUndefined();
    expect(guard.mayChange(req({ origin, 'x-csrf-token': csrf }))).toMatchObject({ status: 401 });
    expect(guard.mayChange(req({ cookie, 'x-csrf-token': csrf }))).toMatchObject({ status: 403 });
    expect(guard.mayChange(req({ cookie, origin }))).toMatchObject({ status: 403 });
    expect(guard.mayChange(req({ cookie, origin, 'x-csrf-token': `${csrf}x` }))).toMatchObject({
      status: 403,
    });
    // Another console session's token does not do.
    const other = signedIn();
    expect(guard.mayChange(req({ cookie, origin, 'x-csrf-token': other.csrf }))).toMatchObject({
      status: 403,
    });
  });
});
