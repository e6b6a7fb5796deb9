import { type Scope, scope } from '@agent-bridge/scope';
import type { EventData } from '../contract/events.js';

/** What the protocol driver does for the engine. */
export interface TurnProtocol {
  /**
   * Writes the input that starts `turn`. Throws InputClosedError when the
   * agent no longer reads. Calls `announce` once it knows the turn's id (at
   * once, or when the agent names it) and `begun` once a cancel can reach
   * the turn.
   */
  startTurn(text: string, turn: Turn): void;
  /** Asks the agent to cancel `turn`, which it has begun. Rejects only when the agent refuses. */
  cancelTurn(turn: Turn): Promise<void>;
}

/** How a turn ended, as the driver reports it. */
export interface TurnEnd {
  /** TURN_COMPLETED's text: the agent's status or stop reason. */
  text: string;
  /** The agent says the turn was cancelled; it counts only if we asked for that. */
  cancelled: boolean;
  error?: string;
  data: EventData;
}

export interface InterruptResult {
  interrupted: boolean;
  turnId: string;
}

/** One turn of a session, as drivers see it. */
export interface Turn {
  /** "turn-<n>" until the agent names the turn with its own id. */
  readonly id: string;
  /**
   * A cancel was asked for (InterruptTurn or the turn timeout) and not
   * withdrawn: drivers read an error end as the cancel taking effect.
   */
  readonly interruptRequested: boolean;
  /** TURN_STARTED has been emitted (or is held until the input is recorded). */
  readonly announced: boolean;
  /**
   * The turn's scope: ends when the turn ends ("turn_end"), when a cancel
   * is asked for ("interrupt": what it still waits on is refused), or with
   * the session. What the turn asks lives inside it.
   */
  readonly signal: AbortSignal;
}

/** The engine's own record of a turn. */
export class TurnState implements Turn {
  id: string;
  interruptRequested = false;
  announced = false;
  /** The agent has begun the turn, so a cancel reaches it. */
  begun = false;
  ended = false;
  /**
   * Whether the turn counts as interrupted, decided once by whichever comes
   * first: its end, or InterruptTurn's answer. So the two always agree.
   */
  verdict: boolean | undefined;
  /** TURN_STARTED's data while it waits for the input that starts the turn to be recorded. */
  held: EventData | undefined;
  /** The interrupt under way, shared by concurrent callers. */
  interrupting: Promise<InterruptResult> | undefined;
  /**
   * The turn's deadline, inside the session's scope rather than the turn's:
   * it outlives an interrupt request (one the agent refuses leaves the turn
   * running, still on the clock) and ends with the turn.
   */
  deadline: Scope | undefined;
  readonly ends = signal<boolean>();
  readonly begins = signal<void>();
  readonly refusals = signal<void>();
  readonly scope: Scope;

  constructor(
    readonly n: number,
    readonly queued: boolean,
    lifetime: AbortSignal,
  ) {
    this.id = `turn-${n}`;
    this.scope = scope(lifetime);
  }

  get signal(): AbortSignal {
    return this.scope.signal;
  }
}

/** Turns only come from the engine, so the view a driver holds is always a TurnState. */
export const state = (turn: Turn): TurnState => turn as TurnState;

/** A promise settled from outside, once. */
function signal<T>(): { promise: Promise<T>; settle(value: T): void } {
  let settle!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    settle = resolve;
  });
  return { promise, settle };
}
