import type { Caller, SessionStatus } from '@agent-bridge/bridge';
import type {
  AckEventsResponse,
  GetSessionResponse,
  InterruptTurnResponse,
  ListSessionsResponse,
  RespondPermissionResponse,
  SendInputResponse,
  StartSessionResponse,
  StopSessionResponse,
} from '@agent-bridge/proto';
import { fromProtoDecision, fromProtoStatus, toProtoSession, toProtoStatus } from '../convert.js';
import type { BytesStreamingServer } from '../event-wire.js';
import type { CallKit } from './call-kit.js';
import { callerSeq } from './caller-seq.js';
import { lookupSignal, orLost } from './lost-fallback.js';
import { unaryCall } from './unary-call.js';

/** The unary RPCs on sessions, each a call to the core with the verified caller. */
export function sessionHandlers(
  kit: CallKit,
): Pick<
  BytesStreamingServer,
  | 'startSession'
  | 'stopSession'
  | 'getSession'
  | 'listSessions'
  | 'sendInput'
  | 'interruptTurn'
  | 'respondPermission'
  | 'ackEvents'
> {
  const { manager, limits, lost } = kit.ctx;
  /** A write: refused for a lost session of the fleet, saying where it lived. */
  const write = <T>(caller: Caller, sessionId: string, local: () => Promise<T>): Promise<T> =>
    orLost(lost, local, (l) => l.refuseWrite(caller, sessionId, lookupSignal()));
  return {
    startSession: unaryCall(
      kit,
      'StartSession',
      async (caller, req): Promise<StartSessionResponse> => {
        const s = await manager.start(caller, {
          projectId: req.projectId,
          sessionId: req.sessionId,
          repoPath: req.repoPath,
          provider: req.provider,
          agentOpts: req.agentOpts,
          name: req.name,
          role: req.role,
        });
        return { sessionId: s.sessionId, status: toProtoStatus(s.status), createdAt: s.createdAt };
      },
      limits.startSession,
    ),

    stopSession: unaryCall(
      kit,
      'StopSession',
      async (caller, req): Promise<StopSessionResponse> => ({
        status: toProtoStatus(
          await write(caller, req.sessionId, () => manager.stop(caller, req.sessionId, req.force)),
        ),
      }),
    ),

    getSession: unaryCall(
      kit,
      'GetSession',
      async (caller, req): Promise<GetSessionResponse> =>
        toProtoSession(
          await orLost(
            lost,
            () => manager.get(caller, req.sessionId),
            async (l) => (await l.find(caller, req.sessionId, lookupSignal())).snapshot(),
          ),
        ),
    ),

    listSessions: unaryCall(
      kit,
      'ListSessions',
      async (caller, req): Promise<ListSessionsResponse> => {
        const statuses: SessionStatus[] = [];
        for (const st of req.statuses) {
          const s = fromProtoStatus(st);
          if (s) statuses.push(s);
        }
        const filter = {
          projectId: req.projectId,
          statuses,
          pageSize: req.pageSize,
          pageToken: req.pageToken,
        };
        manager.list(caller, filter, []); // its refusals (another project, a bad token) come first
        const page = manager.list(caller, filter, (await lost?.list(caller, lookupSignal())) ?? []);
        return { sessions: page.sessions.map(toProtoSession), nextPageToken: page.nextPageToken };
      },
    ),

    sendInput: unaryCall(
      kit,
      'SendInput',
      async (caller, req): Promise<SendInputResponse> => {
        const seq = await write(caller, req.sessionId, () =>
          manager.sendInput(caller, req.sessionId, req.text, req.idempotencyKey),
        );
        return { accepted: true, seq: BigInt(seq) };
      },
      limits.sendInput,
    ),

    interruptTurn: unaryCall(
      kit,
      'InterruptTurn',
      (caller, req): Promise<InterruptTurnResponse> =>
        write(caller, req.sessionId, () => manager.interrupt(caller, req.sessionId)),
    ),

    respondPermission: unaryCall(
      kit,
      'RespondPermission',
      async (caller, req): Promise<RespondPermissionResponse> => ({
        seq: BigInt(
          await write(caller, req.sessionId, () =>
            manager.respondPermission(caller, {
              sessionId: req.sessionId,
              requestId: req.requestId,
              decision: fromProtoDecision(req.decision),
              reason: req.reason,
            }),
          ),
        ),
      }),
    ),

    ackEvents: unaryCall(
      kit,
      'AckEvents',
      async (caller, req): Promise<AckEventsResponse> => ({
        ackSeq: BigInt(
          await orLost(
            lost,
            () =>
              manager.ack(
                caller,
                req.sessionId,
                req.subscriberId,
                callerSeq(req.ackSeq, 'ack_seq', () => manager.get(caller, req.sessionId)),
                req.historyId,
              ),
            (l) =>
              l.ack(
                caller,
                req.sessionId,
                req.subscriberId,
                // Beyond any seq: the lost session's own bound refuses it, naming its last.
                Number(
                  req.ackSeq > BigInt(Number.MAX_SAFE_INTEGER)
                    ? Number.MAX_SAFE_INTEGER
                    : req.ackSeq,
                ),
                req.historyId,
                lookupSignal(),
              ),
          ),
        ),
      }),
    ),
  };
}
