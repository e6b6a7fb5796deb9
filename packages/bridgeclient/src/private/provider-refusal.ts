import type { ProviderInfo } from '../types.js';

/**
 * Why this daemon cannot run a task of `provider`, from its ListProviders
 * answer; undefined when it can. Checked before anything starts.
 */
export function providerRefusal(providers: ProviderInfo[], provider: string): string | undefined {
  const p = providers.find((x) => x.id === provider);
  if (!p) {
    const ids = providers.map((x) => x.id).join(', ') || 'none';
    return `provider ${JSON.stringify(provider)} is not configured (configured: ${ids})`;
  }
  if (!p.available) {
    return `provider ${JSON.stringify(provider)} is unavailable${p.error ? `: ${p.error}` : ''}`;
  }
  if (p.authState === 'UNAUTHENTICATED') {
    const detail = p.authDetail ? `: ${p.authDetail}` : '';
    return `provider ${JSON.stringify(provider)} has no usable credentials${detail}`;
  }
  return undefined;
}
