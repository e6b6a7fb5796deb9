import type { RevocationList } from '@agent-bridge/pki';
import type { GetRevocationListsResponse } from '@agent-bridge/proto';

/** The GetRevocationLists answer: the CRLs the listener enforces now, as loaded. */
export function revocationListsResponse(
  lists: readonly RevocationList[],
): GetRevocationListsResponse {
  return {
    lists: lists.map((l) => ({
      issuer: l.issuer,
      thisUpdate: l.thisUpdate,
      nextUpdate: l.nextUpdate,
      revokedCount: l.revokedSerials.size,
      crlNumber: l.crlNumber === undefined ? '' : l.crlNumber.toString(),
      der: l.der,
    })),
  };
}
