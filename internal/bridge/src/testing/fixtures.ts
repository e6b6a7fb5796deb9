import { randomUUID } from 'node:crypto';
import { within } from '@agent-bridge/waits';
import { noAudit } from '../audit.js';
import { type Clock, systemTimers } from '../clock.js';
import { BridgeError } from '../errors.js';
import type { BridgeEvent } from '../events/event.js';
import { jsonEventCodec } from '../events/event-codec.js';
import { noEventObserver } from '../events/event-observer.js';
import type { EventSlice } from '../events/event-slice.js';
import { DENY_ALL } from '../permissions/permission-policy.js';
import { SecretRedactor } from '../redaction/redactor.js';
import { Session, type SessionDeps } from '../sessions/session.js';
import { memoryStore } from '../store/memory-store.js';
import type { SessionStore } from '../store/session-store.js';
import type { CoreSettings, Logger } from '../types.js';
import { FakeProvider } from './fake-provider.js';

/** Settings small enough to reach every limit in a test; `overrides` win. */
export function testSettings(overrides: Partial<CoreSettings> = {}): CoreSettings {
  return {
    maxPerProject: 3,
    maxGlobal: 5,
    idleTimeoutMs: 60_000,
    stopGracePeriodMs: 1000,
    eventBufferSize: 100,
    eventBufferBytes: 1 << 20,
    retentionMs: 300_000,
    maxSubscribers: 2,
    subscriberTtlMs: 30_000,
    maxInputBytes: 64,
    allowedPaths: [],
    startupTimeoutMs: () => 5000,
    permissionPolicy: () => DENY_ALL,
    resume: () => true,
    ...overrides,
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** What a session outside any manager is built with, in tests. */
export function sessionDeps(
  clock: Clock,
  overrides: Partial<CoreSettings> = {},
  store: SessionStore = memoryStore(),
): SessionDeps {
  return {
    settings: testSettings(overrides),
    secrets: new SecretRedactor(),
    clock,
    timers: systemTimers,
    audit: noAudit,
    observer: noEventObserver,
    codec: jsonEventCodec,
    store,
    lifetime: new AbortController().signal,
  };
}

/** A session of project "alpha" outside any manager, for tests of what reads it. */
export function newSession(
  clock: Clock,
  overrides: Partial<CoreSettings> = {},
  store: SessionStore = memoryStore(),
): Session {
  const request = {
    projectId: 'alpha',
    sessionId: randomUUID(),
    repoPath: '/repo',
    provider: 'fake',
    agentOpts: {},
  };
  return new Session(request, '/repo', new FakeProvider(), sessionDeps(clock, overrides, store));
}

/** The next batch of a stream; fails when the stream ends or stays silent. */
export async function nextBatch(events: AsyncIterator<EventSlice>): Promise<BridgeEvent[]> {
  const r = await within('the next batch', events.next());
  if (r.done) throw new Error('the stream ended');
  return r.value.events();
}

/** Every event left in a stream, which must end. */
export async function readToEnd(events: AsyncIterator<EventSlice>): Promise<BridgeEvent[]> {
  const out: BridgeEvent[] = [];
  for (;;) {
    const r = await within('the end of the stream', events.next());
    if (r.done) return out;
    out.push(...r.value.events());
  }
}

/** The BridgeError kind `fn` fails with, thrown or rejected; "ok" when it succeeds. */
export async function kindOf(fn: () => unknown): Promise<string> {
  try {
    await fn();
    return 'ok';
  } catch (err) {
    if (err instanceof BridgeError) return err.kind;
    throw err;
  }
}

/** How `fn` is refused: the BridgeError's kind, reason and message; fails when it succeeds. */
export async function refusalOf(
  fn: () => unknown,
): Promise<{ kind: string; reason: string; message: string }> {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof BridgeError)) throw err;
    return { kind: err.kind, reason: err.reason, message: err.message };
  }
  throw new Error('the call was accepted');
}
