import type { SessionStatus } from '@agent-bridge/bridge';
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
  const { manager, limits } = kit.ctx;
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
        status: toProtoStatus(await manager.stop(caller, req.sessionId, req.force)),
      }),
    ),

    getSession: unaryCall(
      kit,
      'GetSession',
      (caller, req): GetSessionResponse => toProtoSession(manager.get(caller, req.sessionId)),
    ),

    listSessions: unaryCall(kit, 'ListSessions', (caller, req): ListSessionsResponse => {
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

    sendInput: unaryCall(
      kit,
      'SendInput',
      async (caller, req): Promise<SendInputResponse> => {
        const seq = await manager.sendInput(caller, req.sessionId, req.text, req.idempotencyKey);
        return { accepted: true, seq: BigInt(seq) };
      },
      limits.sendInput,
    ),

    interruptTurn: unaryCall(
      kit,
      'InterruptTurn',
      (caller, req): Promise<InterruptTurnResponse> => manager.interrupt(caller, req.sessionId),
    ),

    respondPermission: unaryCall(
      kit,
      'RespondPermission',
      async (caller, req): Promise<RespondPermissionResponse> => ({
        seq: BigInt(
          await manager.respondPermission(caller, {
            sessionId: req.sessionId,
            requestId: req.requestId,
            decision: fromProtoDecision(req.decision),
            reason: req.reason,
          }),
        ),
      }),
    ),

    ackEvents: unaryCall(
      kit,
      'AckEvents',
      async (caller, req): Promise<AckEventsResponse> => ({
        ackSeq: BigInt(
          await manager.ack(
            caller,
            req.sessionId,
            req.subscriberId,
            callerSeq(req.ackSeq, 'ack_seq', () => manager.get(caller, req.sessionId)),
            req.historyId,
          ),
        ),
      }),
    ),
  };
}
