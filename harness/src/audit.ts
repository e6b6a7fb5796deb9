import { existsSync, readFileSync } from 'node:fs';
import { waitFor } from '@agent-bridge/waits';

/** One line of the daemon's audit file, as written (snake_case, only set fields). */
export interface AuditLine {
  time: string;
  kind: 'call' | 'tls' | 'connection' | 'session' | 'permission';
  outcome: 'allow' | 'deny' | 'ok' | 'error';
  reason: string;
  method?: string;
  session_id?: string;
  project_id?: string;
  peer?: string;
  cert_serial?: string;
  cert_fingerprint?: string;
  cert_identity?: string;
  iss?: string;
  sub?: string;
  detail?: string;
}

/** The audit file of one daemon, read as it grows. */
export class AuditReader {
  constructor(readonly path: string) {}

  /** Every record so far. */
  all(): AuditLine[] {
    if (!existsSync(this.path)) return [];
    return readFileSync(this.path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as AuditLine);
  }

  /** A position to read from: records after it are `since(mark)`. */
  mark(): number {
    return this.all().length;
  }

  since(mark: number): AuditLine[] {
    return this.all().slice(mark);
  }

  /** Waits until a record after `mark` matches `pred`; returns the matching ones. */
  async waitFor(
    what: string,
    pred: (r: AuditLine) => boolean,
    mark = 0,
    timeoutMs = 10_000,
  ): Promise<AuditLine[]> {
    let found: AuditLine[] = [];
    await waitFor(
      () => `audit record: ${what} (after ${mark}: ${JSON.stringify(this.since(mark), null, 1)})`,
      () => {
        found = this.since(mark).filter(pred);
        return found.length > 0;
      },
      timeoutMs,
    );
    return found;
  }
}
