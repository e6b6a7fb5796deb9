import { Metadata } from '@grpc/grpc-js';

/** The response header of an event stream that names the history its events belong to. */
const HISTORY_HEADER = 'bridge-history-id';

/** The headers an event stream opens with: see StreamEvents in the contract. */
export function historyHeader(historyId: string): Metadata {
  const md = new Metadata();
  md.set(HISTORY_HEADER, historyId);
  return md;
}
