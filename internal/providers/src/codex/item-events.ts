import type { AgentEvent, EventData } from '../contract/events.js';
import { str } from '../contract/json-value.js';

/** Thread items that are the agent acting (a tool in the bridge's terms). */
const TOOL_ITEM_TYPES: ReadonlySet<string> = new Set([
  'commandExecution',
  'fileChange',
  'mcpToolCall',
  'dynamicToolCall',
  'collabAgentToolCall',
  'webSearch',
  'imageView',
  'imageGeneration',
]);

export type Item = Record<string, unknown> & { type?: unknown; id?: unknown };

/** What the tool was asked to do, per item type. */
function toolInput(item: Item): unknown {
  switch (item.type) {
    case 'commandExecution':
      return { command: item.command ?? null, cwd: item.cwd ?? null };
    case 'fileChange':
      return { changes: item.changes ?? [] };
    case 'mcpToolCall':
      return { server: item.server ?? null, tool: item.tool ?? null, arguments: item.arguments };
    case 'dynamicToolCall':
      return { tool: item.tool ?? null, arguments: item.arguments };
    case 'collabAgentToolCall':
      return { tool: item.tool ?? null, prompt: item.prompt ?? null };
    case 'webSearch':
      return { query: item.query ?? null };
    case 'imageView':
      return { path: item.path ?? null };
    default:
      return null;
  }
}

/** What the tool produced, per item type. */
function toolOutput(item: Item): unknown {
  switch (item.type) {
    case 'commandExecution':
      return item.aggregatedOutput ?? null;
    case 'fileChange':
      return item.changes ?? [];
    case 'mcpToolCall':
      return item.error ?? item.result ?? null;
    case 'dynamicToolCall':
      return item.contentItems ?? null;
    case 'webSearch':
      return item.action ?? null;
    case 'imageGeneration':
      return item.savedPath ?? item.result ?? null;
    default:
      return null;
  }
}

function toolFailed(item: Item): boolean {
  if (item.status === 'failed' || item.status === 'declined') return true;
  if (typeof item.exitCode === 'number' && item.exitCode !== 0) return true;
  if (item.type === 'mcpToolCall' && item.error) return true;
  return item.success === false;
}

/** A one-line summary for `text`, so a log reader sees what ran without opening `data`. */
function toolSummary(item: Item): string {
  switch (item.type) {
    case 'commandExecution':
      return str(item.command);
    case 'fileChange': {
      const paths = Array.isArray(item.changes)
        ? item.changes.map((c) => str((c as { path?: unknown })?.path)).filter(Boolean)
        : [];
      return paths.join(', ');
    }
    case 'mcpToolCall':
      return `${str(item.server)}.${str(item.tool)}`;
    case 'webSearch':
      return str(item.query);
    default:
      return str(item.tool) || str(item.path);
  }
}

/** `item/started`: a tool item becomes TOOL_CALL; everything else is not an event of its own. */
export function itemStarted(item: Item, turnId: string | undefined): AgentEvent | undefined {
  if (!TOOL_ITEM_TYPES.has(str(item.type))) return undefined;
  const data: EventData = {
    tool_call_id: str(item.id),
    name: str(item.type),
    input: toolInput(item),
    item,
  };
  return { type: 'TOOL_CALL', stream: 'system', text: toolSummary(item), turnId, data };
}

/**
 * `item/completed`: an agent message becomes AGENT_MESSAGE, a tool item
 * TOOL_RESULT (with its status, exit code and output). User messages are
 * already INPUT_RECEIVED; reasoning and the rest are left to emit_raw.
 */
export function itemCompleted(item: Item, turnId: string | undefined): AgentEvent | undefined {
  const type = str(item.type);
  if (type === 'agentMessage') {
    const data: EventData = { item_id: str(item.id) };
    if (item.phase != null) data.phase = item.phase;
    return { type: 'AGENT_MESSAGE', stream: 'stdout', text: str(item.text), turnId, data };
  }
  if (!TOOL_ITEM_TYPES.has(type)) return undefined;
  const data: EventData = {
    tool_call_id: str(item.id),
    name: type,
    status: item.status ?? null,
    output: toolOutput(item),
    is_error: toolFailed(item),
    item,
  };
  if (type === 'commandExecution') data.exit_code = item.exitCode ?? null;
  return {
    type: 'TOOL_RESULT',
    stream: 'system',
    text: `${toolSummary(item)}${item.status ? ` (${str(item.status)})` : ''}`,
    turnId,
    data,
  };
}
