import type { HealthResponse, ListProvidersResponse } from '@agent-bridge/proto';
import {
  providerHealthError,
  toProtoAuthState,
  toProtoFreshness,
  toProtoPermissionPolicy,
  toProtoVersionCoverage,
} from '../convert.js';
import type { BytesStreamingServer } from '../event-wire.js';
import type { CallKit } from './call-kit.js';
import { unaryCall } from './unary-call.js';

/** The RPCs about the daemon itself: Health, ListProviders and GetRevocationLists. */
export function daemonHandlers(
  kit: CallKit,
): Pick<BytesStreamingServer, 'health' | 'getRevocationLists' | 'listProviders'> {
  const { ctx } = kit;
  const { manager } = ctx;
  return {
    health: unaryCall(kit, 'Health', async (caller): Promise<HealthResponse> => {
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
        historyId: manager.historyId,
      };
    }),

    getRevocationLists: unaryCall(kit, 'GetRevocationLists', () => ctx.revocationLists()),
    listProviders: unaryCall(
      kit,
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
