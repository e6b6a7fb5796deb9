import type { Provider, ResumePoint } from '@agent-bridge/providers';
import type { CoreSettings } from '../types.js';

/**
 * Why a session of `provider` could not take up its agent's conversation
 * again after a daemon restart, or undefined when it can: the provider
 * resumes, its configuration allows it (`resume: auto`) and the agent
 * named a conversation (`point`).
 */
export function whyNotResumable(
  provider: Provider,
  settings: Pick<CoreSettings, 'resume'>,
  point: ResumePoint | undefined,
): string | undefined {
  if (!provider.capabilities.resume)
    return `provider "${provider.id}" cannot resume its agent's conversation`;
  if (!settings.resume(provider.id)) return `provider "${provider.id}" has resume: never`;
  if (point === undefined) return 'its agent had no conversation to resume yet';
  return undefined;
}
