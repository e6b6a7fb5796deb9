import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Why a request was refused: its HTTP status and a message for the person. */
export interface Refusal {
  status: number;
  message: string;
}

const COOKIE = 'bridge_console';
const token = () => randomBytes(32).toString('base64url');

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieOf(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return value.join('=');
  }
  return undefined;
}

/**
 * Who may use the console and how: a one-time sign-in token (in the URL
 * bridgectl prints) exchanged for an HttpOnly, SameSite=Strict cookie;
 * every request's Host must name this server (a page of another site that
 * rebinds its DNS name to 127.0.0.1 is refused), its Origin this server's
 * when it has one; a request that changes something needs the cookie, this
 * server's Origin and the CSRF token the page got once signed in.
 */
export class RequestGuard {
  private signIn: string | undefined = token();
  private readonly sessions = new Map<string, string>();
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;

  constructor(port: number) {
    this.hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
    this.origins = new Set([...this.hosts].map((h) => `http://${h}`));
  }

  /** The sign-in token, until it is used. */
  get signInToken(): string | undefined {
    return this.signIn;
  }

  /** Host and Origin: checked on every request, signed in or not. */
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
    if (req.headers['sec-fetch-site'] === 'cross-site') {
      return { status: 403, message: 'cross-site request refused' };
    }
    return undefined;
  }

  /**
   * Exchanges the one-time token for a console session: the cookie to set,
   * or a refusal (a wrong token, or one used already).
   */
  signInWith(offered: string): { cookie: string } | Refusal {
    if (this.signIn === undefined || !same(offered, this.signIn)) {
      return {
        status: 403,
        message:
          'this sign-in link is not valid (each link works once): run `bridgectl ui` again for a new one',
      };
    }
    this.signIn = undefined;
    const id = token();
    this.sessions.set(id, token());
    return { cookie: `${COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/` };
  }

  /** The request's console session: its CSRF token, or a refusal when it has none. */
  signedIn(req: IncomingMessage): { csrf: string } | Refusal {
    const id = cookieOf(req);
    const csrf = id === undefined ? undefined : this.sessions.get(id);
    if (csrf === undefined) {
      return {
        status: 401,
        message: 'not signed in: open the one-time link `bridgectl ui` printed',
      };
    }
    return { csrf };
  }

  /** A request that changes something: signed in, from this server's page, with its CSRF token. */
  mayChange(req: IncomingMessage): Refusal | undefined {
    const session = this.signedIn(req);
    if ('status' in session) return session;
    if (req.headers.origin === undefined) {
      return { status: 403, message: 'a request that changes something must say its origin' };
    }
    const offered = req.headers['x-csrf-token'];
    if (typeof offered !== 'string' || !same(offered, session.csrf)) {
      return { status: 403, message: 'missing or wrong CSRF token: reload the page' };
    }
    return undefined;
  }
}
