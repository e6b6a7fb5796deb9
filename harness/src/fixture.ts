import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BridgeServiceClient, SessionEvent, StreamEventsRequest } from '@agent-bridge/proto';
import type { ClientReadableStream, Metadata } from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { bearer, call, connect, streamEvents, type UnaryMethod } from './client.js';
import { type DaemonOptions, startDaemon, type TestDaemon } from './daemon.js';
import { createTestPki, type TestPki } from './pki.js';
import { sessionClient } from './sessions.js';
import { mintToken, type TokenOptions } from './tokens.js';

export interface BridgeOptions extends Omit<DaemonOptions, 'pki'> {
  /** The project of the default token (`token`, `md`); "alpha" unless given. */
  project?: string;
  /** A PKI made beforehand (to write files signed by its CA into the config); a fresh one otherwise. */
  pki?: TestPki;
}

/** A running daemon with a fresh test PKI, a connected client and a token. */
export interface Bridge {
  readonly pki: TestPki;
  readonly daemon: TestDaemon;
  /** A trusted client (the PKI's `client` certificate) over mutual TLS. */
  readonly client: BridgeServiceClient;
  /** The project of the default token. */
  readonly project: string;
  /** A valid token for `project`, from the "control" issuer, bound to the `client` certificate. */
  readonly token: string;
  /** `token` as call metadata. */
  readonly md: Metadata;
  /**
   * Mints a token from the "control" issuer: for `project` and bound to the
   * `client` certificate unless `o` says otherwise (`bindCertPem: undefined`
   * for an unbound token).
   */
  mint(o?: Partial<TokenOptions>): Promise<string>;
  /** Call metadata with a fresh token for another project. */
  bearerFor(project: string, o?: Partial<TokenOptions>): Promise<Metadata>;
  /** A unary call on `client`, with `md` unless other metadata is given. */
  call<Req, Res>(
    method: (c: BridgeServiceClient) => UnaryMethod<Req, Res>,
    req: Req,
    md?: Metadata,
    timeoutMs?: number,
  ): Promise<Res>;
  /** A StreamEvents call on `client`, with `md` unless other metadata is given. */
  stream(
    req: Partial<StreamEventsRequest> & { sessionId: string },
    md?: Metadata,
  ): ClientReadableStream<SessionEvent>;
  /** Session calls for `project` in `daemon.repo`, with `md`. */
  sessions(): ReturnType<typeof sessionClient>;
  /** Closes the client and stops the daemon (see `TestDaemon.stop`). */
  close(): Promise<void>;
}

/** Creates a test PKI, starts the daemon, connects a client and mints a token. */
export async function startBridge(opts: BridgeOptions = {}): Promise<Bridge> {
  const { project = 'alpha', pki: given, ...daemonOpts } = opts;
  const pki = given ?? (await createTestPki());
  const daemon = await startDaemon({ ...daemonOpts, pki });
  const client = connect({ port: daemon.port, caPem: pki.ca.certPem, client: pki.client });
  const mint = (o: Partial<TokenOptions> = {}) =>
    mintToken({
      privatePem: pki.issuers.control.privatePem,
      project,
      bindCertPem: pki.client.certPem,
      ...o,
    });
  let token: string;
  try {
    token = await mint();
  } catch (err) {
    client.close();
    await daemon.stop();
    throw err;
  }
  const md = bearer(token);
  return {
    pki,
    daemon,
    client,
    project,
    token,
    md,
    mint,
    bearerFor: async (p, o = {}) => bearer(await mint({ ...o, project: p })),
    call: (method, req, m = md, timeoutMs = undefined) => call(client, method, req, m, timeoutMs),
    stream: (req, m = md) => streamEvents(client, req, m),
    sessions: () => sessionClient(client, md, { projectId: project, repoPath: daemon.repo }),
    close: async () => {
      client.close();
      await daemon.stop();
    },
  };
}

/** A `Bridge` that `useDaemon` starts before the tests of its scope and stops after them. */
export interface DaemonFixture extends Bridge {
  /**
   * A directory made before the daemon starts and removed after it stops,
   * for files the configuration names (logs, an agent's HOME).
   */
  readonly scratch: string;
}

/**
 * Registers a `beforeAll` that starts a daemon (`startBridge`) and an
 * `afterAll` that stops it, in the scope where it is called (a file or a
 * `describe`). The returned object's fields are readable from the tests and
 * from hooks registered after this call; reading one earlier throws.
 * `opts` may be a function of the scratch directory.
 */
export function useDaemon(
  opts: BridgeOptions | ((scratch: string) => BridgeOptions) = {},
): DaemonFixture {
  let bridge: Bridge | undefined;
  let scratch: string | undefined;
  beforeAll(async () => {
    scratch = realpathSync(
      mkdtempSync(join(process.env.BRIDGE_TEST_TMPDIR ?? tmpdir(), 'bridge-scratch-')),
    );
    bridge = await startBridge(typeof opts === 'function' ? opts(scratch) : opts);
  });
  afterAll(async () => {
    try {
      await bridge?.close();
    } finally {
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    }
  });
  const live = (): Bridge => {
    if (!bridge) {
      throw new Error(
        'useDaemon: the daemon is not running: read its fields in a test, or in a hook registered after useDaemon()',
      );
    }
    return bridge;
  };
  const fixture = {
    mint: (o) => live().mint(o),
    bearerFor: (p, o) => live().bearerFor(p, o),
    call: (method, req, md, timeoutMs) => live().call(method, req, md, timeoutMs),
    stream: (req, md) => live().stream(req, md),
    sessions: () => live().sessions(),
    close: () => live().close(),
  } as DaemonFixture;
  for (const key of ['pki', 'daemon', 'client', 'project', 'token', 'md'] as const) {
    Object.defineProperty(fixture, key, { enumerable: true, get: () => live()[key] });
  }
  Object.defineProperty(fixture, 'scratch', {
    enumerable: true,
    get: () => {
      live();
      return scratch;
    },
  });
  return fixture;
}

/**
 * The daemons a test starts itself, typically one and then another on its
 * directory (a restart): push each; after each test, each still running is
 * stopped and its directory removed.
 */
export function bridgesOfEachTest(): Bridge[] {
  const bridges: Bridge[] = [];
  afterEach(async () => {
    for (const b of bridges.splice(0)) {
      b.client.close();
      const { proc, dir } = b.daemon;
      if (proc.exitCode === null && proc.signalCode === null) await b.daemon.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
  return bridges;
}
