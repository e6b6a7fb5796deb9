import { isRecord, str } from '../contract/json-value.js';

/**
 * The subset of Agent Client Protocol v1 (schema/v1/schema.json) this client
 * uses. Agents differ in what they fill in and add extra fields (`_meta`,
 * `usage`), so everything an agent sends is read defensively through the
 * helpers below rather than trusted to match these shapes.
 */

/** The only protocol version this client speaks (v2 is a draft). */
export const ACP_PROTOCOL_VERSION = 1;

export const ACP_METHODS = {
  initialize: 'initialize',
  sessionNew: 'session/new',
  /** Takes up an earlier session (agents that advertise `loadSession`), replaying it first. */
  sessionLoad: 'session/load',
  sessionPrompt: 'session/prompt',
  sessionCancel: 'session/cancel',
  sessionSetMode: 'session/set_mode',
  sessionSetConfigOption: 'session/set_config_option',
  /** Unstable in v1, but the only model switch some agents (gemini) advertise. */
  sessionSetModel: 'session/set_model',
  sessionUpdate: 'session/update',
  requestPermission: 'session/request_permission',
} as const;

type PermissionOptionKind = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

export interface PermissionOption {
  optionId: string;
  name?: string;
  kind: PermissionOptionKind | string;
}

export type PermissionOutcome =
  | { outcome: 'cancelled' }
  | { outcome: 'selected'; optionId: string };

export interface InitializeParams {
  protocolVersion: number;
  clientCapabilities: {
    fs: { readTextFile: boolean; writeTextFile: boolean };
    terminal: boolean;
  };
  clientInfo: { name: string; version: string };
}

export interface AgentInfo {
  name?: string;
  title?: string;
  version?: string;
}

export interface AuthMethod {
  id: string;
  name?: string;
  description?: string;
}

interface SessionMode {
  id: string;
  name?: string;
}

interface ConfigOption {
  id: string;
  category?: string;
  type?: string;
  currentValue?: unknown;
  options?: unknown;
}

/** What `session/new` told us, narrowed. */
export interface NewSessionInfo {
  sessionId: string;
  modes: SessionMode[] | undefined;
  currentModeId: string | undefined;
  /** The model selector among `configOptions`, when the agent has one. */
  modelOption: ConfigOption | undefined;
  /** The unstable `models` block (gemini): model switching via `session/set_model`. */
  hasModels: boolean;
}

/** A tool call as `tool_call`, `tool_call_update` and permission requests describe it. */
export interface ToolCallFields {
  toolCallId: string;
  title?: string;
  kind?: string;
  status?: string;
  rawInput?: unknown;
  rawOutput?: unknown;
  content?: unknown;
  locations?: unknown;
}

/** Reads the fields of a tool call; undefined when it has no id. */
export function toolCallFields(v: unknown): ToolCallFields | undefined {
  if (!isRecord(v) || typeof v.toolCallId !== 'string') return undefined;
  const out: ToolCallFields = { toolCallId: v.toolCallId };
  if (typeof v.title === 'string') out.title = v.title;
  if (typeof v.kind === 'string') out.kind = v.kind;
  if (typeof v.status === 'string') out.status = v.status;
  for (const k of ['rawInput', 'rawOutput', 'content', 'locations'] as const) {
    if (v[k] !== undefined && v[k] !== null) out[k] = v[k];
  }
  return out;
}

export function newSessionInfo(result: unknown): NewSessionInfo {
  if (!isRecord(result) || typeof result.sessionId !== 'string' || result.sessionId === '') {
    throw new Error('session/new returned no sessionId');
  }
  let modes: SessionMode[] | undefined;
  let currentModeId: string | undefined;
  if (isRecord(result.modes) && Array.isArray(result.modes.availableModes)) {
    modes = result.modes.availableModes
      .filter((m): m is Record<string, unknown> => isRecord(m) && typeof m.id === 'string')
      .map((m) => ({
        id: m.id as string,
        ...(typeof m.name === 'string' ? { name: m.name } : {}),
      }));
    currentModeId = str(result.modes.currentModeId) || undefined;
  }
  const configOptions = Array.isArray(result.configOptions) ? result.configOptions : [];
  const modelOption = configOptions.find(
    (o): o is ConfigOption =>
      isRecord(o) && typeof o.id === 'string' && (o.category === 'model' || o.id === 'model'),
  );
  return {
    sessionId: result.sessionId,
    modes,
    currentModeId,
    modelOption,
    hasModels: isRecord(result.models),
  };
}

/** The text of content blocks (`{type:"text"}` directly or wrapped in `{type:"content"}`). */
export function contentText(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  const parts: string[] = [];
  for (const b of blocks) {
    if (!isRecord(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text);
    else if (b.type === 'content') {
      const inner = contentText(b.content);
      if (inner) parts.push(inner);
    }
  }
  return parts.join('\n');
}
