import { endCause, type Scope, scope } from '@agent-bridge/scope';
/** A request to the agent that failed: refused, timed out, or cut off by the agent's exit. */
export class RequestError extends Error {
  constructor(
    message: string,
    /** The protocol's error code (JSON-RPC codes; -32001 timeout, -32099 closed). */
    readonly code: number,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

const TIMED_OUT = -32001;
const CLOSED = -32099;

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  /** The request's deadline, ended once it is answered. */
  deadline: Scope | undefined;
  label: string;
}

/**
 * The requests we sent and await answers to, matched by id: ids are handed
 * out here, each request may time out, and closing fails all of them. Both
 * protocols with request/response pairs use it (JSON-RPC for codex and ACP,
 * claude's control requests), so correlation is written once.
 */
export class PendingRequests<Id extends string | number> {
  private readonly pending = new Map<Id, Pending>();
  private closedWith: RequestError | undefined;

  constructor(private readonly nextId: () => Id) {}

  /**
   * Registers a request under a fresh id and calls `write(id)` to send it.
   * A throwing `write` propagates synchronously (the request was never
   * sent); otherwise the promise settles with the answer, a timeout
   * (`timeoutMs` > 0) or the close.
   */
  send<T>(label: string, timeoutMs: number, write: (id: Id) => void): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId();
    write(id);
    return new Promise<T>((resolve, reject) => {
      const deadline = timeoutMs > 0 ? scope([], { timeoutMs }) : undefined;
      deadline?.signal.addEventListener('abort', () => {
        if (endCause(deadline.signal) !== 'timeout' || this.pending.get(id)?.deadline !== deadline)
          return;
        this.pending.delete(id);
        reject(new RequestError(`${label} timed out after ${timeoutMs}ms`, TIMED_OUT));
      });
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, deadline, label });
    });
  }

  /** Settles request `id` with an answer; false when no such request waits (late or unknown). */
  resolve(id: Id, value: unknown): boolean {
    const p = this.take(id);
    p?.resolve(value);
    return p !== undefined;
  }

  /** Fails request `id`; the error message is prefixed with the request's label. */
  reject(id: Id, message: string, code: number, data?: unknown): boolean {
    const p = this.take(id);
    p?.reject(new RequestError(`${p.label}: ${message}`, code, data));
    return p !== undefined;
  }

  /** Fails every waiting request; later sends reject at once. */
  close(reason: string): void {
    if (this.closedWith) return;
    this.closedWith = new RequestError(reason, CLOSED);
    for (const id of [...this.pending.keys()]) this.take(id)?.reject(this.closedWith);
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  private take(id: Id): Pending | undefined {
    const p = this.pending.get(id);
    if (!p) return undefined;
    this.pending.delete(id);
    p.deadline?.end();
    return p;
  }
}
