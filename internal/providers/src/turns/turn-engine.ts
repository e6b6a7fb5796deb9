import { endCause, ScopeEnded, scope } from '@agent-bridge/scope';
import { InputClosedError } from '../contract/errors.js';
import type { AgentEvent, EventData } from '../contract/events.js';
import { firstWithin } from '../process/abortable.js';
import {
  type InterruptResult,
  state,
  type Turn,
  type TurnEnd,
  type TurnProtocol,
  TurnState,
} from './turn.js';

/** How long an interrupt waits for the agent to end the turn, by default. */
const INTERRUPT_WAIT_MS = 5_000;

export interface TurnEngineOptions {
  /** The session's scope; each turn's scope lives inside it. */
  lifetime: AbortSignal;
  emit(event: AgentEvent): void;
  /** Whether the agent still reads its input. */
  inputOpen(): boolean;
  /** A turn running longer than this is interrupted (and `kill` called if that fails); 0 = never. */
  timeoutMs: number;
  /** Ends the agent when a timed-out turn cannot be interrupted. */
  kill(): void;
  interruptWaitMs?: number;
}

/**
 * The turn logic every structured adapter shares. Inputs that arrive while
 * a turn runs are queued, and each starts its own turn when the previous
 * one ends (agents would otherwise merge them, blurring whose events are
 * whose). An input the agent can no longer read is refused synchronously,
 * before the caller records it. TURN_STARTED always follows the input's
 * record. An interrupt that comes before the agent has begun the turn is
 * held and delivered when it begins; a turn counts as interrupted only when
 * it ended because of the interrupt, and InterruptTurn's answer and
 * TURN_COMPLETED agree on it. Every turn has a deadline: a CLI that retries
 * forever becomes an AGENT_ERROR and an interrupt, then a kill, never a hang.
 */
export class TurnEngine {
  private count = 0;
  private running: TurnState | undefined;
  /** True while the protocol writes a direct input, before the caller has recorded it. */
  private starting = false;
  private readonly queue: string[] = [];
  private closed = false;
  private protocol: TurnProtocol | undefined;

  constructor(private readonly opts: TurnEngineOptions) {}

  /** Connects the driver (which needs the engine to be built first). */
  attach(protocol: TurnProtocol): void {
    this.protocol = protocol;
  }

  /** The running turn, if any. */
  get current(): Turn | undefined {
    return this.running;
  }

  /** The id to tag the agent's output with: the running turn's, once announced. */
  get currentId(): string | undefined {
    return this.running?.announced ? this.running.id : undefined;
  }

  /**
   * Delivers an input: starts a turn, or queues the input while one runs.
   * `recorded` is called once the input is accepted and before the turn is
   * announced; an agent that no longer reads gets InputClosedError instead.
   */
  send(text: string, recorded: () => void): void {
    if (this.closed || !this.opts.inputOpen()) throw new InputClosedError();
    if (this.running) {
      this.queue.push(text);
      recorded();
      return;
    }
    this.start(text, recorded);
  }

  /**
   * Interrupts the running turn. Resolves once it ended (`interrupted`: it
   * ended because of this), once the agent refused, or after the wait.
   */
  interrupt(): Promise<InterruptResult> {
    const turn = this.running;
    if (!turn) return Promise.resolve({ interrupted: false, turnId: '' });
    if (!turn.interrupting) {
      // A new request supersedes the "no" an earlier one got while the turn still runs.
      turn.verdict = undefined;
      turn.interrupting = this.deliverInterrupt(turn);
    }
    return turn.interrupting;
  }

  /** The driver knows the turn's id (`agentTurnId` when the agent named it): emits TURN_STARTED. */
  announce(view: Turn, data: EventData = {}, agentTurnId?: string): void {
    const turn = state(view);
    if (turn.announced || turn.ended) return;
    if (agentTurnId) turn.id = agentTurnId;
    turn.announced = true;
    turn.held = turn.queued ? { ...data, queued: true } : data;
    if (this.running === turn && this.starting) return; // emitted once the input is recorded
    this.emitStarted(turn);
  }

  /** The agent has begun `turn`: a held interrupt goes out now. */
  begun(view: Turn): void {
    const turn = state(view);
    if (turn.begun || turn.ended) return;
    turn.begun = true;
    turn.begins.settle();
    if (turn.interruptRequested) this.cancel(turn);
  }

  /** The turn ended: emits TURN_COMPLETED and starts the next queued input. */
  complete(view: Turn, end: TurnEnd): void {
    const turn = state(view);
    if (turn.ended) return;
    // Agents that name the turn late may end it before; its TURN_STARTED still comes first.
    this.announce(turn);
    turn.verdict ??= end.cancelled && turn.interruptRequested;
    // What the turn still waits on is settled before the event that ends it.
    turn.scope.end(new ScopeEnded(turn.verdict ? 'interrupt' : 'turn_end'));
    this.opts.emit({
      type: 'TURN_COMPLETED',
      stream: 'system',
      text: end.text,
      done: true,
      turnId: turn.id,
      ...(end.error ? { error: end.error } : {}),
      data: { ...end.data, interrupted: turn.verdict },
    });
    this.end(turn);
    this.next();
  }

  /** The agent refused to start `turn`, so it never ran: reported, then the next input goes on. */
  abandon(view: Turn, event: AgentEvent): void {
    const turn = state(view);
    if (turn.ended) return;
    this.end(turn);
    if (this.closed) return;
    this.opts.emit(event);
    this.next();
  }

  /** The agent is gone: nothing more starts, the running turn ends without TURN_COMPLETED. */
  close(): void {
    this.closed = true;
    this.queue.length = 0;
    if (!this.running) return;
    // The agent is gone: what the turn waits on is answered as such.
    this.running.scope.end(new ScopeEnded('exit'));
    this.end(this.running);
  }

  private start(text: string, recorded?: () => void): void {
    const turn = new TurnState(++this.count, recorded === undefined, this.opts.lifetime);
    this.running = turn;
    this.starting = true;
    try {
      this.protocol?.startTurn(text, turn);
      recorded?.();
    } catch (err) {
      this.running = undefined;
      throw err;
    } finally {
      this.starting = false;
    }
    if (turn.held) this.emitStarted(turn);
    this.armTimeout(turn);
  }

  private emitStarted(turn: TurnState): void {
    const data = turn.held ?? {};
    turn.held = undefined;
    this.opts.emit({
      type: 'TURN_STARTED',
      stream: 'system',
      text: '',
      turnId: turn.id,
      ...(Object.keys(data).length > 0 ? { data } : {}),
    });
  }

  private next(): void {
    const text = this.queue.shift();
    if (text === undefined || this.closed) return;
    try {
      this.start(text);
    } catch (err) {
      this.queue.length = 0;
      this.opts.emit({
        type: 'AGENT_ERROR',
        stream: 'system',
        text: `a queued input could not be delivered: ${(err as Error).message}`,
        error: (err as Error).message,
        data: { reason: 'input_closed' },
      });
    }
  }

  private end(turn: TurnState): void {
    turn.ended = true;
    turn.verdict ??= false;
    turn.scope.end(new ScopeEnded(turn.verdict ? 'interrupt' : 'turn_end'));
    turn.deadline?.end();
    if (this.running === turn) this.running = undefined;
    turn.ends.settle(turn.verdict);
  }

  private async deliverInterrupt(turn: TurnState): Promise<InterruptResult> {
    turn.interruptRequested = true;
    const wait = this.opts.interruptWaitMs ?? INTERRUPT_WAIT_MS;
    const begun = turn.begun;
    if (begun) this.cancel(turn);
    // The caller wants the turn to stop: nothing it waits on is granted now
    // (an agent blocked on an answer could not end the turn otherwise).
    turn.scope.end(new ScopeEnded('interrupt'));
    if (!begun) {
      // Held: begun() sends the cancel once the agent has begun the turn.
      const held = await firstWithin<boolean | 'begun'>(
        [turn.ends.promise, turn.begins.promise.then(() => 'begun' as const)],
        wait,
      );
      if (held === 'waited') turn.interruptRequested = false;
      if (held !== 'begun') return this.answer(turn);
    }
    // The cancel is out: the turn gets the whole wait to end from now.
    const outcome = await firstWithin<boolean | 'refused'>(
      [turn.ends.promise, turn.refusals.promise.then(() => 'refused' as const)],
      wait,
    );
    if (outcome === 'refused') turn.interruptRequested = false;
    return this.answer(turn);
  }

  /** InterruptTurn's answer; a turn that has not ended by now will not count as interrupted. */
  private answer(turn: TurnState): InterruptResult {
    turn.interrupting = undefined;
    turn.verdict ??= false;
    return { interrupted: turn.verdict, turnId: turn.id };
  }

  private cancel(turn: TurnState): void {
    let cancelling: Promise<void>;
    try {
      cancelling = this.protocol?.cancelTurn(turn) ?? Promise.resolve();
    } catch (err) {
      cancelling = Promise.reject(err);
    }
    cancelling.catch(() => {
      // Refused because the turn just ended: its end says how. Refused while it runs: not interrupted.
      if (!turn.ended) turn.refusals.settle();
    });
  }

  /** The turn ran past its deadline: report it, interrupt it, and kill the agent if that fails. */
  private armTimeout(turn: TurnState): void {
    const ms = this.opts.timeoutMs;
    if (ms <= 0) return;
    const deadline = scope(this.opts.lifetime, { timeoutMs: ms });
    turn.deadline = deadline;
    deadline.signal.addEventListener('abort', () => {
      // Its own deadline only: the turn's end or the session's is not a timeout.
      if (turn.ended || endCause(deadline.signal) !== 'timeout') return;
      this.opts.emit({
        type: 'AGENT_ERROR',
        stream: 'system',
        text: `turn ${turn.id} exceeded the turn timeout (${Math.round(ms / 1000)}s); interrupting it`,
        error: 'turn timeout',
        turnId: turn.id,
        data: { reason: 'turn_timeout', timeout_ms: ms },
      });
      this.interrupt().then(({ interrupted }) => {
        // A turn that completed while the interrupt was on its way needs no kill.
        if (!interrupted && !turn.ended) this.opts.kill();
      });
    });
  }
}
