import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Why a request was refused: its HTTP status and a message for the person. */
export interface Refusal {
  status: number;
  message: string;
}

const token = () => randomBytes(32).toString('base64url');

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Who may use the console and how. The link bridgectl prints carries a
 * sign-in token that works once; it is exchanged for two things: a session
 * cookie (HttpOnly, SameSite=Strict, named after the port, since browsers
 * send a cookie of 127.0.0.1 to every port) and a page key, handed to the
 * page in the redirect's fragment (never sent to a server), which the page
 * keeps in its origin's storage and sends with every API call (a header, or
 * `?key=` where EventSource can set none). A request needs both: the cookie
 * alone (sent by the browser to any server on 127.0.0.1) opens nothing, nor
 * does the key outside the browser that signed in. Every request's Host
 * must name this server (a site that rebinds its DNS name to 127.0.0.1 is
 * refused), its Origin, when it has one, this server's, and no request may
 * come from another site, or another port of this one.
 */
export class RequestGuard {
  private signIn: string | undefined = token();
  /** Session cookie value to its page key. */
  private readonly sessions = new Map<string, string>();
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;
  readonly cookieName: string;

  constructor(port: number) {
    this.hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
    this.origins = new Set([...this.hosts].map((h) => `http://${h}`));
    this.cookieName = `bridge_console_${port}`;
  }

  /** The sign-in token, until it is used. */
  get signInToken(): string | undefined {
    return this.signIn;
  }

  /** Host, Origin and Fetch metadata: checked on every request, signed in or not. */
  checkSite(req: IncomingMessage): Refusal | undefined {
    const host = req.headers.host ?? '';
    if (!this.hosts.has(host)) {
      return {
        status: 421,
        message: `this console answers to 127.0.0.1 only, not to host "${host}"`,
      };
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !this.origins.has(origin)) {
      return { status: 403, message: `cross-site request refused (origin ${origin})` };
    }
    const site = req.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') {
      return { status: 403, message: `${site} request refused` };
    }
    return undefined;
  }

  /**
   * Exchanges the one-time token for a console session: the cookie to set
   * and the page key, or a refusal (a wrong token, or one used already).
   */
  signInWith(offered: string): { cookie: string; key: string } | Refusal {
    if (this.signIn === undefined || !same(offered, this.signIn)) {
      return {
        status: 403,
        message:
          'this sign-in link is not valid (each link works once): run `bridgectl ui` again for a new one',
      };
    }
    this.signIn = undefined;
    const id = token();
    const key = token();
    this.sessions.set(id, key);
    return { cookie: `${this.cookieName}=${id}; HttpOnly; SameSite=Strict; Path=/`, key };
  }

  /** True when the request carries the cookie of a console session. */
  hasSession(req: IncomingMessage): boolean {
    return this.keyOf(req) !== undefined;
  }

  /**
   * A request of the signed-in page: its cookie and, sent with it, its page
   * key (`x-console-key`, or `?key=` for event feeds). A request that
   * changes something must also name this server as its Origin.
   */
  check(req: IncomingMessage, query: URLSearchParams, changes: boolean): Refusal | undefined {
    const key = this.keyOf(req);
    if (key === undefined) {
      return {
        status: 401,
        message: 'not signed in: open the one-time link `bridgectl ui` printed',
      };
    }
    const header = req.headers['x-console-key'];
    const offered = typeof header === 'string' ? header : (query.get('key') ?? '');
    if (!same(offered, key)) {
      return { status: 403, message: 'missing or wrong page key: reload the page' };
    }
    if (changes && req.headers.origin === undefined) {
      return { status: 403, message: 'a request that changes something must say its origin' };
    }
    return undefined;
  }

  private keyOf(req: IncomingMessage): string | undefined {
    for (const part of (req.headers.cookie ?? '').split(';')) {
      const [name, ...value] = part.trim().split('=');
      if (name === this.cookieName) return this.sessions.get(value.join('='));
    }
    return undefined;
  }
}
