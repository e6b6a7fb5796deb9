import { isRecord, type JsonObject } from '../contract/json-value.js';
import type { ToolServer } from '../contract/provider.js';
import type { JsonRpcPeer } from '../turns/json-rpc-peer.js';
import { RequestError } from '../turns/pending-requests.js';
import {
  ACP_METHODS,
  ACP_PROTOCOL_VERSION,
  type AgentInfo,
  type AuthMethod,
  type InitializeParams,
  type NewSessionInfo,
  newSessionInfo,
} from './acp-schema.js';

/** The JSON-RPC code ACP uses for "authentication required". */
const AUTH_REQUIRED = -32000;

/** What the agent said about itself in `initialize`. */
export interface AcpAgent {
  info: AgentInfo;
  authMethods: AuthMethod[];
  capabilities: JsonObject;
}

export interface HandshakeOptions {
  cwd: string;
  /** The session's agent_opts: `mode` and `model` are applied here. */
  options: Readonly<Record<string, string>>;
  /** How `agent_opts.model` reaches the agent: already in argv, or set over the protocol. */
  modelVia: 'argv' | 'protocol';
  clientVersion: string;
  /** An earlier session of the agent to load instead of a new one (after a daemon restart). */
  resume?: string | undefined;
  /** The bridge's tool server, given to the agent as an MCP server of the session. */
  tools?: ToolServer | undefined;
}

/** `mcpServers` of session/new and session/load: the bridge's tool server, if any (ACP's stdio shape). */
const mcpServersOf = (tools: ToolServer | undefined) =>
  tools ? [{ name: tools.name, command: tools.command, args: tools.args, env: [] }] : [];

/**
 * ACP start-up: `initialize` (as ACP v1, offering no file system or
 * terminal), `session/new` in the repository (or `session/load` of the
 * session to resume), then the session's mode and model. No request timeouts: the start-up timeout bounds the whole of it.
 */
export async function openAcpSession(
  peer: JsonRpcPeer,
  opts: HandshakeOptions,
): Promise<{ agent: AcpAgent; session: NewSessionInfo }> {
  const params: InitializeParams = {
    protocolVersion: ACP_PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: 'agent-bridge', version: opts.clientVersion },
  };
  const init = await peer.request(ACP_METHODS.initialize, params, 0);
  if (!isRecord(init)) throw new Error('initialize returned no result');
  if (init.protocolVersion !== ACP_PROTOCOL_VERSION) {
    throw new Error(
      `the agent speaks ACP protocol version ${JSON.stringify(init.protocolVersion)}; this client speaks ${ACP_PROTOCOL_VERSION}`,
    );
  }
  const agent: AcpAgent = {
    info: isRecord(init.agentInfo) ? (init.agentInfo as AgentInfo) : {},
    authMethods: Array.isArray(init.authMethods)
      ? init.authMethods.filter((m): m is AuthMethod => isRecord(m) && typeof m.id === 'string')
      : [],
    capabilities: isRecord(init.agentCapabilities) ? init.agentCapabilities : {},
  };
  const session = await (opts.resume === undefined
    ? peer
        .request(ACP_METHODS.sessionNew, { cwd: opts.cwd, mcpServers: mcpServersOf(opts.tools) }, 0)
        .then(newSessionInfo)
    : loadSession(peer, agent, opts.resume, opts.cwd, mcpServersOf(opts.tools))
  ).catch((err: unknown) => {
    throw explainAuth(err, agent.authMethods);
  });
  await applyMode(peer, session, opts.options.mode);
  if (opts.modelVia === 'protocol') await applyModel(peer, session, opts.options.model);
  return { agent, session };
}

/**
 * `session/load` of an earlier session: the agent replays it as
 * `session/update` notifications (the driver drops those: the bridge has
 * them already), then answers like `session/new`, without the id.
 */
async function loadSession(
  peer: JsonRpcPeer,
  agent: AcpAgent,
  sessionId: string,
  cwd: string,
  mcpServers: ReturnType<typeof mcpServersOf>,
): Promise<NewSessionInfo> {
  if (agent.capabilities.loadSession !== true) {
    throw new Error('cannot resume: the agent does not offer session/load (loadSession)');
  }
  const loaded = await peer.request(ACP_METHODS.sessionLoad, { sessionId, cwd, mcpServers }, 0);
  return newSessionInfo({ ...(isRecord(loaded) ? loaded : {}), sessionId });
}

async function applyMode(
  peer: JsonRpcPeer,
  session: NewSessionInfo,
  mode: string | undefined,
): Promise<void> {
  if (mode === undefined) return;
  if (!session.modes) throw new Error(`agent_opts.mode: this agent offers no session modes`);
  if (!session.modes.some((m) => m.id === mode)) {
    throw new Error(
      `agent_opts.mode: this agent has no mode "${mode}" (it offers: ${session.modes.map((m) => m.id).join(', ')})`,
    );
  }
  if (session.currentModeId === mode) return;
  await peer.request(ACP_METHODS.sessionSetMode, { sessionId: session.sessionId, modeId: mode }, 0);
}

async function applyModel(
  peer: JsonRpcPeer,
  session: NewSessionInfo,
  model: string | undefined,
): Promise<void> {
  if (model === undefined) return;
  if (session.modelOption) {
    if (session.modelOption.currentValue === model) return;
    await peer.request(
      ACP_METHODS.sessionSetConfigOption,
      { sessionId: session.sessionId, configId: session.modelOption.id, value: model },
      0,
    );
    return;
  }
  if (!session.hasModels) {
    throw new Error('agent_opts.model: this agent offers no way to choose a model');
  }
  await peer.request(
    ACP_METHODS.sessionSetModel,
    { sessionId: session.sessionId, modelId: model },
    0,
  );
}

/** An auth_required answer to session/new, with the agent's own sign-in methods. */
function explainAuth(err: unknown, methods: AuthMethod[]): unknown {
  if (!(err instanceof RequestError) || err.code !== AUTH_REQUIRED) return err;
  const names = methods.map((m) => m.name ?? m.id).join('; ');
  return new Error(
    `${err.message} (the agent is not authenticated${names ? `; it supports: ${names}` : ''})`,
  );
}
