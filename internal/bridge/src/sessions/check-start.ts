import type { Provider } from '@agent-bridge/providers';
import { denied, invalid } from '../errors.js';
import type { Caller, StartRequest } from '../types.js';
import { checkSessionId, checkSessionLabel, preview, refusedOptions } from '../validate.js';

/** A start request names a valid session id (and name and role) in the caller's own project. */
export function checkStart(caller: Caller, req: StartRequest): void {
  checkSessionId(req.sessionId);
  checkSessionLabel(req.name ?? '', 'name');
  checkSessionLabel(req.role ?? '', 'role');
  if (req.projectId === '') throw invalid('project_id is required', 'project_id_missing');
  if (req.projectId !== caller.projectId) {
    throw denied(
      `the token is not valid for project ${preview(req.projectId)}`,
      'project_mismatch',
    );
  }
}

/**
 * The provider a new session asks for: configured, and allowing the agent
 * options it was given. Checked before anything is opened or spawned.
 */
export function startingProvider(
  req: StartRequest,
  providers: ReadonlyMap<string, Provider>,
): Provider {
  const provider = providers.get(req.provider);
  if (!provider) {
    throw invalid(
      `provider ${preview(req.provider)} is not configured (configured: ${[...providers.keys()].join(', ')})`,
      'unknown_provider',
    );
  }
  const refusal = provider.validateOptions(req.agentOpts);
  if (refusal) {
    const message = refusedOptions(refusal, req.agentOpts);
    throw refusal.malformed
      ? invalid(message, 'agent_opt_malformed')
      : denied(message, 'agent_opt_not_allowed');
  }
  return provider;
}
