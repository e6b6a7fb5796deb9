import type { JwtVerifier } from '@agent-bridge/auth';
import {
  type Audit,
  BridgeError,
  type Caller,
  type EventSlice,
  type EventStream,
  type SessionManager,
  type SessionStatus,
  type TokenBuckets,
  unavailable,
} from '@agent-bridge/bridge';
import type {
  AckEventsResponse,
  GetRevocationListsResponse,
  GetSessionResponse,
  HealthResponse,
  InterruptTurnResponse,
  ListProvidersResponse,
  ListSessionsResponse,
  RespondPermissionResponse,
  SendInputResponse,
  StartSessionResponse,
  StopSessionResponse,
  StreamEventsRequest,
} from '@agent-bridge/proto';
import { endCause, type Scope, ScopeEnded, scope } from '@agent-bridge/scope';
import {
  type ServerUnaryCall,
  type ServerWritableStream,
  type sendUnaryData,
  status,
} from '@grpc/grpc-js';
import type { Logger } from 'pino';
import {
  fromProtoDecision,
  fromProtoStatus,
  providerHealthError,
  toProtoAuthState,
  toProtoFreshness,
  toProtoPermissionPolicy,
  toProtoSession,
  toProtoStatus,
  toProtoVersionCoverage,
} from './convert.js';
import {
  type BytesStreamingServer,
  batchMessage,
  eventMessage,
  sessionSuffix,
} from './event-wire.js';
import { authenticate } from './private/authenticate.js';
import { callRecorder } from './private/call-audit.js';
import { type CallLimits, spend } from './private/call-limits.js';
import type { ConnectionIdentities } from './private/connection-identities.js';
import { historyHeader } from './private/history-header.js';
import { type PeerCall, peerIdentity } from './private/peer-identity.js';
import { sendStream } from './private/send-stream.js';
import { TokenExpiredDuringStream } from './private/token-expired.js';
import { toServiceError } from './status-map.js';

export interface ServiceContext {
  manager: SessionManager;
  verifier: JwtVerifier;
  logger: Logger;
  audit: Audit;
  limits: CallLimits;
  version: string;
  instanceId: string;
  startedAt: Date;
  /** The CRLs the TLS listener enforces now (GetRevocationLists). */
  revocationLists(): GetRevocationListsResponse;
  /** Identities of the live connections, worked out when each was accepted. */
  connections?: ConnectionIdentities;
  /**
   * The server's scope: ended (ScopeEnded "shutdown") when a shutdown's
   * grace for open calls runs out, so every stream still open ends with
   * UNAVAILABLE instead of being cut.
   */
  lifetime?: AbortSignal;
  observeCall?: CallObserver;
}

/**
 * Told of each finished call: unary calls when answered, streams once open
 * (code OK) or refused. `code` is the status name ("OK", "NOT_FOUND").
 */
export type CallObserver = (method: string, code: string, seconds: number) => void;

/** Events per StreamEventBatches message, and a byte cap well under the 4 MiB message limit. */
const BATCH = { maxEvents: 512, maxBytes: 1024 * 1024 };
/** StreamEvents pulls in small slices; each event is still its own message. */
const SINGLE = { maxEvents: 64, maxBytes: 1024 * 1024 };

/**
 * Maps BridgeService RPCs to the core. Authentication, rate limits, the
 * one audit record of every call and error mapping happen here, once.
 */
export function createBridgeService(ctx: ServiceContext): BytesStreamingServer {
  const { manager } = ctx;
  const record = callRecorder(ctx.audit, ctx.logger);
  const observe = ctx.observeCall;
  const peerOf = (call: PeerCall) => ctx.connections?.get(call.getPeer()) ?? peerIdentity(call);
  const timed = (method: string, started: bigint, code: status) =>
    observe?.(
      method,
      status[code] ?? String(code),
      Number(process.hrtime.bigint() - started) / 1e9,
    );

  function unary<Req, Res>(
    method: string,
    fn: (caller: Caller, req: Req) => Promise<Res> | Res,
    limit?: TokenBuckets,
  ): (call: ServerUnaryCall<Req, Res>, cb: sendUnaryData<Res>) => void {
    return (call, cb) => {
      const started = process.hrtime.bigint();
      const peer = peerOf(call);
      let caller: Caller | undefined;
      authenticate(ctx.verifier, ctx.limits, call.metadata, peer)
        .then((auth) => {
          caller = auth.caller;
          if (limit) spend(limit, method, caller);
          return fn(caller, call.request);
        })
        .then(
          (res) => {
            record(method, call.request, peer, caller, undefined);
            cb(null, res);
            timed(method, started, status.OK);
          },
          (err) => {
            record(method, call.request, peer, caller, err);
            const e = fail(ctx.logger, method, err, ctx.manager.redact);
            cb(e);
            timed(method, started, e.code);
          },
        );
    };
  }

  // Streams write bytes encoded once per event (see event-wire.ts); the
  // service is registered with serializers that pass them through.
  function stream(
    method: string,
    batch: { maxEvents: number; maxBytes: number },
    encode: (slice: EventSlice, suffix: Buffer) => readonly Buffer[],
  ): (call: ServerWritableStream<StreamEventsRequest, Buffer>) => void {
    return (call) => {
      const started = process.hrtime.bigint();
      // The call's scope: ended by the client (cancel, close) or with the daemon's.
      const lifetime = scope(ctx.lifetime ?? []);
      const gone = () => lifetime.end(new ScopeEnded('stop'));
      call.on('cancelled', gone);
      call.on('close', gone);
      const peer = peerOf(call);
      let caller: Caller | undefined;
      let events: EventStream | undefined;
      // Inside the call's: no longer than the token that opened the stream.
      let open: Scope | undefined;
      (async () => {
        const auth = await authenticate(ctx.verifier, ctx.limits, call.metadata, peer);
        caller = auth.caller;
        open = scope(lifetime.signal, {
          timeoutMs: Math.max(0, auth.validUntil - Date.now()),
          timeoutReason: () => new TokenExpiredDuringStream(),
        });
        const req = call.request;
        events = manager.openStream(
          caller,
          {
            sessionId: req.sessionId,
            afterSeq:
              req.afterSeq === undefined
                ? undefined
                : callerSeq(req.afterSeq, 'after_seq', () => manager.get(caller!, req.sessionId)),
            subscriberId: req.subscriberId,
          },
          open.signal,
          batch,
        );
        // Before any event: which history they belong to, for the reader's acks.
        call.sendMetadata(historyHeader(manager.historyId));
        record(method, req, peer, caller, undefined);
        timed(method, started, status.OK);
        const suffix = sessionSuffix(events.session);
        if (await sendStream(call, events, (slice) => encode(slice, suffix), open.signal)) {
          call.end();
          return;
        }
        const why = open.signal.reason;
        if (why instanceof TokenExpiredDuringStream) throw why;
        if (endCause(open.signal) === 'shutdown') {
          throw unavailable('the daemon is shutting down', 'shutting_down');
        }
      })()
        .catch((err) => {
          if (err instanceof TokenExpiredDuringStream) {
            record(method, call.request, peer, caller, err);
            call.emit('error', err.status());
            return;
          }
          const refused = events === undefined;
          const shutdown = err instanceof BridgeError && err.reason === 'shutting_down';
          const e =
            refused || shutdown || !lifetime.signal.aborted
              ? fail(ctx.logger, method, err, ctx.manager.redact)
              : undefined;
          if (refused) {
            record(method, call.request, peer, caller, err);
            if (e) timed(method, started, e.code);
          }
          // grpc-js turns an 'error' event on a server stream into the call's status.
          if (e && (shutdown || !lifetime.signal.aborted)) call.emit('error', e);
        })
        .finally(() => {
          open?.end();
          lifetime.end();
          events?.close();
        });
    };
  }

  return {
    startSession: unary(
      'StartSession',
      async (caller, req): Promise<StartSessionResponse> => {
        const s = await manager.start(caller, {
          projectId: req.projectId,
          sessionId: req.sessionId,
          repoPath: req.repoPath,
          provider: req.provider,
          agentOpts: req.agentOpts,
        });
        return { sessionId: s.sessionId, status: toProtoStatus(s.status), createdAt: s.createdAt };
      },
      ctx.limits.startSession,
    ),

    stopSession: unary(
      'StopSession',
      async (caller, req): Promise<StopSessionResponse> => ({
        status: toProtoStatus(await manager.stop(caller, req.sessionId, req.force)),
      }),
    ),

    getSession: unary(
      'GetSession',
      (caller, req): GetSessionResponse => toProtoSession(manager.get(caller, req.sessionId)),
    ),

    listSessions: unary('ListSessions', (caller, req): ListSessionsResponse => {
      const statuses: SessionStatus[] = [];
      for (const st of req.statuses) {
        const s = fromProtoStatus(st);
        if (s) statuses.push(s);
      }
      const page = manager.list(caller, {
        projectId: req.projectId,
        statuses,
        pageSize: req.pageSize,
        pageToken: req.pageToken,
      });
      return { sessions: page.sessions.map(toProtoSession), nextPageToken: page.nextPageToken };
    }),

    sendInput: unary(
      'SendInput',
      (caller, req): SendInputResponse => {
        const seq = manager.sendInput(caller, req.sessionId, req.text, req.idempotencyKey);
        return { accepted: true, seq: BigInt(seq) };
      },
      ctx.limits.sendInput,
    ),

    interruptTurn: unary(
      'InterruptTurn',
      (caller, req): Promise<InterruptTurnResponse> => manager.interrupt(caller, req.sessionId),
    ),

    respondPermission: unary(
      'RespondPermission',
      (caller, req): RespondPermissionResponse => ({
        seq: BigInt(
          manager.respondPermission(caller, {
            sessionId: req.sessionId,
            requestId: req.requestId,
            decision: fromProtoDecision(req.decision),
            reason: req.reason,
          }),
        ),
      }),
    ),

    streamEvents: stream('StreamEvents', SINGLE, (slice, suffix) =>
      Array.from({ length: slice.count }, (_, i) => eventMessage(slice, i, suffix)),
    ),

    streamEventBatches: stream('StreamEventBatches', BATCH, (slice, suffix) => [
      batchMessage(slice, suffix),
    ]),

    ackEvents: unary(
      'AckEvents',
      (caller, req): AckEventsResponse => ({
        ackSeq: BigInt(
          manager.ack(
            caller,
            req.sessionId,
            req.subscriberId,
            callerSeq(req.ackSeq, 'ack_seq', () => manager.get(caller, req.sessionId)),
            req.historyId,
          ),
        ),
      }),
    ),

    health: unary('Health', async (caller): Promise<HealthResponse> => {
      const counts = manager.counts(caller.projectId);
      const providers = await Promise.all(
        [...manager.providers.values()].map(async (p) => {
          const st = await p.health();
          return {
            provider: p.id,
            available: st.available,
            error: providerHealthError(st),
            ...toProtoFreshness(st),
            warning: st.warning,
          };
        }),
      );
      return {
        status: manager.shuttingDown ? 'not_serving' : 'serving',
        providers,
        version: ctx.version,
        serverInstanceId: ctx.instanceId,
        startedAt: ctx.startedAt,
        activeSessions: counts.active,
        retainedSessions: counts.retained,
        sessionLimit: counts.limit,
        projectActiveSessions: counts.projectActive,
        projectSessionLimit: counts.projectLimit,
      };
    }),

    getRevocationLists: unary('GetRevocationLists', () => ctx.revocationLists()),
    listProviders: unary(
      'ListProviders',
      async (): Promise<ListProvidersResponse> => ({
        providers: await Promise.all(
          [...manager.providers.values()].map(async (p) => {
            const st = await p.health();
            return {
              id: p.id,
              binaryPath: st.binaryPath,
              version: st.version,
              available: st.available,
              error: providerHealthError(st),
              capabilities: { ...p.capabilities },
              authState: toProtoAuthState(st.authState),
              authDetail: st.authDetail,
              checkedAt: st.checkedAt,
              permissionPolicy: toProtoPermissionPolicy(manager.permissionPolicy(p.id)),
              ...toProtoFreshness(st),
              ...toProtoVersionCoverage(st),
            };
          }),
        ),
      }),
    ),
  };
}

function fail(logger: Logger, method: string, err: unknown, redact: SessionManager['redact']) {
  const e = toServiceError(err, redact);
  if (e.code === 13 /* INTERNAL */) logger.error({ err, method }, 'internal error');
  return e;
}

/**
 * A seq a caller sent, as the core's number. One beyond 2^53 is beyond any
 * seq the daemon can reach: OUT_OF_RANGE, naming the value as it was sent
 * (the core would only see it rounded).
 */
function callerSeq(
  v: bigint,
  field: 'after_seq' | 'ack_seq',
  session: () => { lastSeq: number },
): number {
  if (v <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(v);
  const last = session().lastSeq;
  throw new BridgeError(
    'out_of_range',
    `${field} ${v} is beyond the last seq ${last}`,
    `${field}_beyond_last`,
  );
}
