import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * What the proxy does with a connection it accepts:
 * - `forward`: connects to the target and copies bytes both ways;
 * - `stall`: keeps the connection open and never answers (a hung peer);
 * - `refuse`: closes it at once (a peer that is gone).
 */
export type ProxyMode = 'forward' | 'stall' | 'refuse';

/**
 * How `cutEach` ends one connection:
 * - `{ afterMs }`: both sockets destroyed that long after the accept;
 * - `{ serverChunks, end: 'cut' }`: the target's first `serverChunks`
 *   writes reach the client (with TLS 1.3, the first is the server's whole
 *   handshake flight), and both sockets are destroyed when its next write
 *   arrives, unforwarded: a cut after the TLS handshake and before HTTP/2's
 *   settings exchange;
 * - `{ serverChunks, end: 'close' }`: the same, but the client's side is
 *   closed cleanly (FIN) rather than reset;
 * - `{ serverChunks, end: 'stall' }`: the same, but the connection stays
 *   open and everything the target writes afterwards is dropped: a peer
 *   that went silent in mid-handshake.
 */
export type CutPlan =
  | { afterMs: number }
  | { serverChunks: number; end: 'cut' | 'close' | 'stall' };

/** A connection through the proxy: the accepted socket and, when forwarding, the upstream one. */
interface Pair {
  down: Socket;
  up: Socket | undefined;
  /** While true, bytes from the target are dropped instead of reaching the client. */
  holdUp: boolean;
  /** The timer of its `cutEach` cut. */
  cut?: NodeJS.Timeout;
  /** A cut or stall planned at the target's n-th write. */
  serverChunks?: { serverChunks: number; end: 'cut' | 'close' | 'stall'; seen: number };
}

/**
 * A loopback TCP proxy in front of a daemon (or anything else), for fault
 * tests: it cuts every open connection on demand and keeps accepting new
 * ones, can stall or refuse new connections, drop what the target answers,
 * and move to another target (a restarted daemon on a new port).
 */
export interface TcpProxy {
  /** The port it listens on, on 127.0.0.1. */
  readonly port: number;
  /** "127.0.0.1:<port>", as a client's target. */
  readonly target: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Connections open now. */
  readonly open: number;
  /** Connections cut by `cutAll` or `cutEach` so far. */
  readonly cuts: number;
  /**
   * Of those, the ones `cutEach` cut in the handshakes: within `early` ms of
   * their accept, or by the target's write count; and the stalls.
   */
  readonly earlyCuts: number;
  /** How new connections are handled from now on; open ones are left as they are. */
  mode: ProxyMode;
  /** Forward new connections to this port on 127.0.0.1 from now on. */
  retarget(port: number): void;
  /**
   * Destroys both sockets of every open connection, at once and without
   * flushing what is still buffered; returns how many were cut.
   */
  cutAll(): number;
  /**
   * From now on, drops every byte the target sends on the connections open
   * now, while still forwarding what the client sends: requests reach the
   * target, their answers are lost. `cutAll` ends it (new connections
   * forward normally).
   */
  dropAnswers(): void;
  /**
   * From now on, each new connection is ended as `plan()` says (see
   * CutPlan); undefined leaves it alone. Cuts within `early` ms of the
   * accept (the TLS and HTTP/2 handshakes, on loopback) are counted apart.
   * `cutEach(undefined)` stops it, and the time cuts still pending.
   */
  cutEach(plan: (() => CutPlan | undefined) | undefined, early?: number): void;
  /** Stops listening and cuts every connection. */
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 (an ephemeral port) forwarding to 127.0.0.1:`targetPort`. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let upstreamPort = targetPort;
  let accepted = 0;
  let cuts = 0;
  let earlyCuts = 0;
  let cutPlan: (() => CutPlan | undefined) | undefined;
  let early = 150;
  const end = (p: Pair) => {
    pairs.delete(p);
    clearTimeout(p.cut);
    p.down.destroy();
    p.up?.destroy();
  };
  const server: Server = createServer({ noDelay: true }, (down) => {
    accepted++;
    const pair: Pair = { down, up: undefined, holdUp: false };
    pairs.add(pair);
    const plan = cutPlan?.();
    if (plan && 'afterMs' in plan) {
      pair.cut = setTimeout(() => {
        if (!pairs.has(pair)) return;
        cuts++;
        if (plan.afterMs < early) earlyCuts++;
        end(pair);
      }, plan.afterMs);
    }
    if (plan && 'serverChunks' in plan) pair.serverChunks = { ...plan, seen: 0 };
    down.on('error', () => end(pair));
    down.on('close', () => end(pair));
    if (proxy.mode === 'refuse') return end(pair);
    if (proxy.mode === 'stall') {
      down.resume(); // read and discard: the peer sees a connection that never answers
      return;
    }
    const up = connect({ host: '127.0.0.1', port: upstreamPort, noDelay: true });
    pair.up = up;
    up.on('error', () => end(pair));
    up.on('close', () => end(pair));
    copy(down, up, () => false);
    copy(up, down, () => {
      const plan = pair.serverChunks;
      if (plan && ++plan.seen > plan.serverChunks) {
        pair.serverChunks = undefined;
        earlyCuts++;
        if (plan.end === 'cut') {
          cuts++;
          end(pair);
        } else if (plan.end === 'close') {
          // A clean close towards the client (FIN), as a peer or middlebox that shuts down.
          cuts++;
          pair.holdUp = true;
          pair.up?.destroy();
          pair.down.end();
        } else {
          pair.holdUp = true;
        }
      }
      return pair.holdUp;
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  const proxy: TcpProxy = {
    port,
    target: `127.0.0.1:${port}`,
    get accepted() {
      return accepted;
    },
    get open() {
      return pairs.size;
    },
    get cuts() {
      return cuts;
    },
    get earlyCuts() {
      return earlyCuts;
    },
    mode: 'forward',
    retarget: (p) => {
      upstreamPort = p;
    },
    cutAll: () => {
      const n = pairs.size;
      for (const p of [...pairs]) end(p);
      cuts += n;
      return n;
    },
    dropAnswers: () => {
      for (const p of pairs) p.holdUp = true;
    },
    cutEach: (plan, earlyMs = 150) => {
      cutPlan = plan;
      early = earlyMs;
      // Stopped: the cuts still pending on open connections are off too.
      if (!plan) {
        for (const p of pairs) {
          clearTimeout(p.cut);
          p.serverChunks = undefined;
        }
      }
    },
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const p of [...pairs]) end(p);
      await closed;
    },
  };
  return proxy;
}

/** Copies `from` to `to` with backpressure, dropping the bytes while `drop()` holds. */
function copy(from: Socket, to: Socket, drop: () => boolean): void {
  from.on('data', (chunk: Buffer) => {
    if (drop() || to.destroyed) return;
    if (!to.write(chunk)) {
      from.pause();
      to.once('drain', () => from.resume());
    }
  });
  from.on('end', () => to.end());
}
