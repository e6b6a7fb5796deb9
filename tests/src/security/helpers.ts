/**
 * Shared oracle for the security tests (catalogue §2): every rejected input
 * gets its exact gRPC code, a message that never echoes the token, and no
 * state change (session list, agent processes, ring seq, daemon alive).
 */
import { randomUUID } from 'node:crypto';
import type { BridgeServiceClient } from '@agent-bridge/proto';
import type { Metadata, ServiceError } from '@grpc/grpc-js';
import { expect } from 'vitest';
import {
  bearer,
  call,
  connect,
  createTestPki,
  type DaemonOptions,
  descendants,
  isAlive,
  mintToken,
  startDaemon,
  type TestDaemon,
  type TestPki,
} from '../harness/index.js';

export interface World {
  pki: TestPki;
  daemon: TestDaemon;
  client: BridgeServiceClient;
  /** A valid token's metadata for `project`. */
  md: Metadata;
  project: string;
  /** A running mock session of `project`, used to watch its ring seq. */
  ref: string;
  close(): Promise<void>;
}

/** Starts a daemon, connects a trusted client and starts one reference session. */
export async function setupWorld(
  opts: Omit<DaemonOptions, 'pki'> & { project?: string } = {},
): Promise<World> {
  const pki = await createTestPki();
  const daemon = await startDaemon({ ...opts, pki });
  const client = connect({ port: daemon.port, caPem: pki.ca.certPem, client: pki.client });
  const project = opts.project ?? 'alpha';
  const md = bearer(await mintToken({ privatePem: pki.issuers.control.privatePem, project }));
  const ref = randomUUID();
  await call(
    client,
    (c) => c.startSession,
    { projectId: project, sessionId: ref, repoPath: daemon.repo, provider: 'mock', agentOpts: {} },
    md,
  );
  return {
    pki,
    daemon,
    client,
    md,
    project,
    ref,
    close: async () => {
      client.close();
      await daemon.stop();
    },
  };
}

export interface State {
  sessions: string[];
  children: number;
  refLastSeq: bigint;
  daemonAlive: boolean;
}

/** What must not change when a request is rejected. */
export async function snapshot(w: World, md: Metadata = w.md): Promise<State> {
  const list = await call(
    w.client,
    (c) => c.listSessions,
    { projectId: '', statuses: [], pageSize: 1000, pageToken: '' },
    md,
  );
  const ref = await call(w.client, (c) => c.getSession, { sessionId: w.ref }, w.md);
  return {
    sessions: list.sessions.map((s) => `${s.sessionId}:${s.status}`).sort(),
    children: descendants(w.daemon.pid).length,
    refLastSeq: ref.lastSeq,
    daemonAlive: isAlive(w.daemon.pid),
  };
}

export async function expectUnchanged(w: World, before: State): Promise<void> {
  const after = await snapshot(w);
  expect(after).toEqual(before);
  expect(after.daemonAlive).toBe(true);
}

export interface Rejection {
  code: number | 'ok';
  details: string;
  message: string;
}

/** Settles a call: its code and messages, or 'ok'. */
export async function outcome(p: Promise<unknown>): Promise<Rejection> {
  try {
    await p;
    return { code: 'ok', details: '', message: '' };
  } catch (err) {
    const e = err as ServiceError;
    return { code: e.code, details: e.details ?? '', message: e.message ?? '' };
  }
}

/** Fails when `text` contains the token or any substantial part of it. */
export function expectNoSecret(text: string, secrets: readonly string[]): void {
  for (const s of secrets) {
    for (const part of [s, ...s.split('.')]) {
      if (part.length >= 12) expect(text).not.toContain(part);
    }
  }
}

/** An unauthenticated-by-default request set: one cheap unary call. */
export const health = (w: World, md: Metadata) => call(w.client, (c) => c.health, {}, md);
