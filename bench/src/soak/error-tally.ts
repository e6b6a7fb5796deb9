import { status } from '@grpc/grpc-js';

/** RPC failures by "Method CODE", split by whether the workload could have caused them. */
export class ErrorTally {
  readonly expected: Record<string, number> = {};
  readonly unexpected: Record<string, number> = {};
  /** The first few unexpected failures in full, for the report. */
  readonly firstUnexpected: string[] = [];

  record(method: string, err: unknown, expected: boolean): void {
    const code = (err as { code?: unknown }).code;
    const name = typeof code === 'number' ? (status[code] ?? String(code)) : 'NO_CODE';
    const key = `${method} ${name}`;
    const into = expected ? this.expected : this.unexpected;
    into[key] = (into[key] ?? 0) + 1;
    if (!expected && this.firstUnexpected.length < 20) {
      this.firstUnexpected.push(`${key}: ${(err as Error).message ?? String(err)}`);
    }
  }
}

export const codeOf = (err: unknown) => (err as { code?: number }).code;
