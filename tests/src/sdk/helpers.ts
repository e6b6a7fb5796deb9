/**
 * What the SDK tests share: a BridgeClient for a test daemon (or a proxy in
 * front of it), and the oracle for rejected calls: the exact error class
 * and code, a clear message naming the RPC, and no state change.
 */
import {
  BridgeClient,
  type BridgeClientOptions,
  BridgeError,
  type SessionEvent,
  type StatusName,
} from '@agent-bridge/bridgeclient';
import { type Bridge, waitFor } from '@agent-bridge/harness';
import { expect } from 'vitest';

/** Options of a client of `bridge`'s daemon as project `projectId`, over its test PKI. */
export function clientOptions(
  bridge: Pick<Bridge, 'pki' | 'daemon'>,
  over: Partial<Omit<BridgeClientOptions, 'jwt'>> & {
    jwt?: Partial<BridgeClientOptions['jwt']>;
  } = {},
): BridgeClientOptions {
  const { jwt, ...rest } = over;
  return {
    target: `127.0.0.1:${bridge.daemon.port}`,
    mtls: {
      ca: bridge.pki.ca.certPem,
      cert: bridge.pki.client.certPem,
      key: bridge.pki.client.keyPem,
      serverName: 'localhost',
    },
    ...rest,
    // A token function is used as given; otherwise the test issuer's key signs.
    jwt:
      jwt && 'token' in jwt && jwt.token
        ? (jwt as BridgeClientOptions['jwt'])
        : {
            privateKey: bridge.pki.issuers.control.privatePem,
            issuer: 'control',
            subject: 'sdk-test',
            projectId: 'alpha',
            ...jwt,
          },
  };
}

/** Clients made by `sdkClient`, closed by `closeClients` (an afterEach/afterAll). */
const open = new Set<BridgeClient>();

/** A BridgeClient of `bridge`'s daemon (see clientOptions), closed after the test. */
export function sdkClient(
  bridge: Pick<Bridge, 'pki' | 'daemon'>,
  over: Parameters<typeof clientOptions>[1] = {},
): BridgeClient {
  const c = new BridgeClient(clientOptions(bridge, over));
  open.add(c);
  return c;
}

export function closeClients(): void {
  for (const c of open) c.close();
  open.clear();
}

/**
 * The error a call rejects with; fails the test if it resolves. Checks it
 * is exactly `Class` (not only a subclass of it) with gRPC status `code`,
 * from the RPC `method`, with a message that says something beyond the code.
 */
export async function rejection<E extends BridgeError>(
  p: Promise<unknown>,
  Class: new (...args: never[]) => E,
  code: StatusName,
  method: string,
): Promise<E> {
  const err = await p.then(
    (v) => {
      throw new Error(`expected ${Class.name} (${code}), the call succeeded with ${show(v)}`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BridgeError);
  expect((err as Error).constructor).toBe(Class);
  const e = err as E;
  expect({ code: e.code, method: e.method, name: e.name }).toEqual({
    code,
    method,
    name: Class.name,
  });
  expect(e.details.length).toBeGreaterThan(0);
  expect(e.details).not.toBe(code);
  expect(e.message).toBe(`${method}: ${e.details}`);
  return e;
}

/** The error (or reason) an iteration of `events` ended with; fails when it ends without one. */
export async function iterationError(
  events: AsyncIterable<SessionEvent>,
  body: (e: SessionEvent) => void = () => {},
): Promise<unknown> {
  try {
    for await (const e of events) body(e);
  } catch (err) {
    return err;
  }
  throw new Error('the iteration ended without an error');
}

const show = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

export const seqsOf = (events: SessionEvent[]) => events.map((e) => e.seq);

export const range = (from: number, to: number) =>
  Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

/**
 * A state summary for "nothing changed" checks: every session of the
 * client's project, once none is starting or stopping and no stream of
 * ours is still open on one (a cancelled stream leaves the daemon a moment
 * later). Sessions that still run must be idle when it is called.
 */
export async function projectState(client: BridgeClient) {
  let out: string[] = [];
  await waitFor(
    () => `every session of the project to settle:\n${out.join('\n')}`,
    async () => {
      out = [];
      let settled = true;
      for await (const s of client.sessions({ pageSize: 1000 })) {
        out.push(`${s.sessionId} ${s.status} ${s.provider} last=${s.lastSeq}`);
        if (s.status === 'STARTING' || s.status === 'STOPPING' || s.subscriberCount > 0) {
          settled = false;
        }
      }
      return settled;
    },
  );
  return out.sort();
}

/** GetSession once no stream of ours is open on the session any more (see projectState). */
export async function settledSession(client: BridgeClient, sessionId: string) {
  let info = await client.getSession(sessionId);
  await waitFor(
    () => `session ${sessionId} to have no reader (${info.subscriberCount})`,
    async () => {
      info = await client.getSession(sessionId);
      return info.subscriberCount === 0;
    },
  );
  return info;
}
