import type { BridgeServiceClient } from '@agent-bridge/proto';
import { connectivityState } from '@grpc/grpc-js';

/** Back-to-back connection attempts that timed out grow the next budget, up to this many times. */
const MAX_STRETCH = 4;

/**
 * The generated client of one daemon, replaced whenever it has been trying
 * to connect for longer than the connect budget. grpc-js has no such
 * bound: a peer that goes silent after the TLS handshake, before HTTP/2's
 * settings exchange, leaves the connection attempt pending for good, the
 * channel CONNECTING (or, after an earlier failure, TRANSIENT_FAILURE,
 * which pick_first keeps while it retries), and every call failing or
 * waiting until its deadline. Here a channel that has not been READY for
 * `connectMs` while trying is closed (calls waiting on it fail UNAVAILABLE,
 * which callers retry) and a new one takes its place, on a connection of
 * its own. On a host so busy that honest handshakes take that long, or
 * while the daemon is down, each replacement in a row doubles the budget,
 * up to four times.
 */
export class DaemonChannel {
  private client: BridgeServiceClient;
  private stuckTimer: NodeJS.Timeout | undefined;
  private stretch = 1;
  private closed = false;
  private replaced = 0;
  /** Counts connections that came up: a new value is a new connection, maybe to another daemon. */
  private connections = 0;

  constructor(
    private readonly make: () => BridgeServiceClient,
    private readonly connectMs: number,
  ) {
    this.client = this.open();
  }

  /** The client of the channel in use now: take it afresh for every call. */
  get raw(): BridgeServiceClient {
    return this.client;
  }

  /** How many channels were replaced because their connection did not come up in time. */
  get replacements(): number {
    return this.replaced;
  }

  /**
   * The connection the channel is on now: a number that changes with every
   * new connection, or undefined while none is up. What was learnt of the
   * daemon on one connection holds only while the number stays the same.
   */
  connection(): number | undefined {
    const up = this.client.getChannel().getConnectivityState(false) === connectivityState.READY;
    return up ? this.connections : undefined;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.stuckTimer);
    this.client.close();
  }

  private open(): BridgeServiceClient {
    const client = this.make();
    this.watch(client, client.getChannel().getConnectivityState(false));
    return client;
  }

  /** Follows the channel's states (event-driven, no timer) until it shuts down. */
  private watch(client: BridgeServiceClient, state: connectivityState): void {
    const channel = client.getChannel();
    channel.watchConnectivityState(state, Number.POSITIVE_INFINITY, () => {
      const next = channel.getConnectivityState(false);
      this.changed(client, next);
      if (next !== connectivityState.SHUTDOWN) this.watch(client, next);
    });
  }

  private changed(client: BridgeServiceClient, state: connectivityState): void {
    if (client !== this.client || this.closed) return;
    const trying =
      state === connectivityState.CONNECTING || state === connectivityState.TRANSIENT_FAILURE;
    if (trying) {
      // The budget runs from when it began trying, through every retry since.
      if (this.stuckTimer) return;
      this.stuckTimer = setTimeout(() => this.replace(client), this.connectMs * this.stretch);
      this.stuckTimer.unref();
      return;
    }
    clearTimeout(this.stuckTimer);
    this.stuckTimer = undefined;
    if (state === connectivityState.READY) {
      this.stretch = 1;
      this.connections++;
    }
  }

  private replace(stuck: BridgeServiceClient): void {
    this.stuckTimer = undefined;
    if (stuck !== this.client || this.closed) return;
    this.stretch = Math.min(MAX_STRETCH, this.stretch * 2);
    this.replaced++;
    this.client = this.open();
    stuck.close();
  }
}
