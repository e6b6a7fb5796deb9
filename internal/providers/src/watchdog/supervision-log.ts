/**
 * Where process supervision reports what an operator must see: the daemon
 * passes its logger in, tests a recorder.
 */
export interface SupervisionLog {
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}
