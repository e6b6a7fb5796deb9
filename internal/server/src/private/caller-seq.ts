import { BridgeError } from '@agent-bridge/bridge';

/**
 * A seq a caller sent, as the core's number. One beyond 2^53 is beyond any
 * seq the daemon can reach: OUT_OF_RANGE, naming the value as it was sent
 * (the core would only see it rounded).
 */
export function callerSeq(
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
