import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { RequestGuard } from './request-guard.js';

const PORT = 4321;
const NONE = new URLSearchParams();
const req = (headers: Record<string, string>) =>
  ({ headers: { host: `127.0.0.1:${PORT}`, ...headers } }) as unknown as IncomingMessage;

function signedIn(guard = new RequestGuard(PORT)): {
  guard: RequestGuard;
  cookie: string;
  key: string;
} {
  const signIn = guard.signInWith(guard.signInToken ?? '');
  if (!('cookie' in signIn)) throw new Error('sign-in refused');
  return { guard, cookie: signIn.cookie.split(';')[0] as string, key: signIn.key };
}

describe('the console request guard', () => {
  it('gives a cookie named after its port and a page key for the sign-in token, once', () => {
    const guard = new RequestGuard(PORT);
    const token = guard.signInToken as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(guard.signInWith('wrong')).toMatchObject({ status: 403 });
    const first = guard.signInWith(token);
    expect(first).toMatchObject({
      cookie: expect.stringMatching(
        /^bridge_console_4321=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/$/,
      ),
      key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(guard.signInWith(token)).toMatchObject({
      status: 403,
      message: expect.stringContaining('works once'),
    });
    expect(guard.signInToken).toBeUndefined();
  });

  it('answers to its own host and origin only, and to no other site or port', () => {
    const guard = new RequestGuard(PORT);
    expect(guard.checkSite(req({}))).toBeUndefined();
    expect(
      guard.checkSite(req({ host: `localhost:${PORT}`, origin: `http://localhost:${PORT}` })),
    ).toBeUndefined();
    expect(guard.checkSite(req({ 'sec-fetch-site': 'same-origin' }))).toBeUndefined();
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
    expect(guard.checkSite(req({ origin: 'http://127.0.0.1:1' }))).toMatchObject({ status: 403 });
    expect(guard.checkSite(req({ 'sec-fetch-site': 'cross-site' }))).toMatchObject({ status: 403 });
    expect(guard.checkSite(req({ 'sec-fetch-site': 'same-site' }))).toMatchObject({ status: 403 });
  });

  it('lets a call through only with the cookie and its page key, and a change only with its origin too', () => {
    const { guard, cookie, key } = signedIn();
    const origin = `http://127.0.0.1:${PORT}`;
    expect(guard.check(req({ cookie, 'x-console-key': key }), NONE, false)).toBeUndefined();
    expect(guard.check(req({ cookie }), new URLSearchParams({ key }), false)).toBeUndefined();
    expect(guard.check(req({ cookie, origin, 'x-console-key': key }), NONE, true)).toBeUndefined();
    // The cookie alone (sent by the browser to any port of 127.0.0.1) opens nothing.
    expect(guard.check(req({ cookie }), NONE, false)).toMatchObject({ status: 403 });
    expect(guard.check(req({ 'x-console-key': key }), NONE, false)).toMatchObject({ status: 401 });
    expect(guard.check(req({ cookie, 'x-console-key': `${key}x` }), NONE, false)).toMatchObject({
      status: 403,
    });
    expect(guard.check(req({ cookie, 'x-console-key': key }), NONE, true)).toMatchObject({
      status: 403,
    });
    // Another console session's key does not do.
    const other = signedIn(new RequestGuard(PORT));
    expect(guard.check(req({ cookie, 'x-console-key': other.key }), NONE, false)).toMatchObject({
      status: 403,
    });
    expect(guard.hasSession(req({ cookie }))).toBe(true);
    expect(guard.hasSession(req({ cookie: 'bridge_console_4321=forged' }))).toBe(false);
  });
});
