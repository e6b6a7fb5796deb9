import { InputClosedError } from '../contract/errors.js';
import type { AgentEvent } from '../contract/events.js';
import type { JsonObject } from '../contract/json-value.js';
import type {
  AskPermission,
  PermissionAsk,
  PermissionDecision,
  PermissionVerdict,
} from '../contract/permission.js';
import type { SessionSpec, ToolServer } from '../contract/provider.js';
import type { DriverContext, ProtocolDriver } from '../turns/structured-provider.js';
import { TurnEngine } from '../turns/turn-engine.js';

export interface HarnessOptions {
  options?: Record<string, string>;
  /** How the session's gate answers: always this decision (default deny, "policy"), or as the function says. */
  permissions?: PermissionDecision | ((ask: PermissionAsk) => Promise<PermissionVerdict>);
  repoPath?: string;
  /** The session's tool server (SessionSpec.tools). */
  tools?: ToolServer;
  interruptWaitMs?: number;
  turnTimeoutMs?: number;
}

/**
 * A protocol driver with its turn engine and nothing else: what it writes
 * to the agent, what it emits, and inputs sent the way the core sends them
 * (`recorded` notes how many events preceded each input's record).
 */
export function driverHarness<D extends ProtocolDriver>(
  make: (ctx: DriverContext) => D,
  opts: HarnessOptions = {},
) {
  const events: AgentEvent[] = [];
  const written: JsonObject[] = [];
  const recordedAt: number[] = [];
  let inputClosed = false;
  let kills = 0;
  const lifetime = new AbortController();
  const turns = new TurnEngine({
    lifetime: lifetime.signal,
    emit: (e) => events.push(e),
    // Writes fail once the input is closed (closeInput), as the first write to a gone agent does.
    inputOpen: () => true,
    timeoutMs: opts.turnTimeoutMs ?? 0,
    kill: () => {
      kills++;
    },
    ...(opts.interruptWaitMs !== undefined ? { interruptWaitMs: opts.interruptWaitMs } : {}),
  });
  const options = opts.options ?? {};
  const asks: PermissionAsk[] = [];
  const answer = opts.permissions ?? 'deny';
  const askPermission: AskPermission = (ask, _signal) => {
    asks.push(ask);
    return typeof answer === 'function'
      ? answer(ask)
      : Promise.resolve({ decision: answer, decidedBy: 'policy', reason: '' });
  };
  const ctx: DriverContext = {
    spec: {
      projectId: 'p',
      sessionId: 's',
      repoPath: opts.repoPath ?? '/repo',
      cwd: opts.repoPath ?? '/repo',
      options,
      spawned: () => {},
      emit: () => {},
      signal: new AbortController().signal,
      lifetime: lifetime.signal,
      startupClock: { stop() {}, restart() {} },
      askPermission,
      ...(opts.tools ? { tools: opts.tools } : {}),
    } satisfies SessionSpec,
    options,
    askPermission: (ask) => askPermission(ask, turns.current?.signal ?? lifetime.signal),
    turns,
    emit: (e) => events.push(e),
    writeJson: (m) => {
      if (inputClosed) throw new InputClosedError();
      written.push(m);
    },
  };
  const driver = make(ctx);
  turns.attach(driver);
  return {
    driver,
    turns,
    events,
    /** The permission requests the driver put to the gate. */
    asks,
    written,
    recordedAt,
    /** SendInput as the core does it. */
    send: (text: string) => turns.send(text, () => recordedAt.push(events.length)),
    interrupt: () => turns.interrupt(),
    /** Feeds messages as the agent's stdout would. */
    feed: (...msgs: unknown[]) => {
      for (const m of msgs)
        driver.onMessage(typeof m === 'string' ? JSON.parse(m) : (m as JsonObject));
    },
    last: () =>
      written.at(-1) as JsonObject & { id?: number; method?: string; params?: JsonObject },
    closeInput: () => {
      inputClosed = true;
    },
    /** The agent exited: what the provider does on exit. */
    exit: () => {
      turns.close();
      driver.onExit?.({ exitCode: 0, signal: null });
    },
    kills: () => kills,
  };
}
