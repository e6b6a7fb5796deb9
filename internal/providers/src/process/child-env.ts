/**
 * The only variables of the daemon's own environment a child inherits. Every
 * other variable (credentials, BRIDGE_* settings, tokens) stays in the daemon;
 * a provider that needs more gets it explicitly through `providers.<id>.env`.
 */
const INHERITED_ENV = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_MESSAGES',
  'TERM',
  'TZ',
  'TMPDIR',
] as const;

/** Builds a child's environment: the inherited allowlist, then the provider's explicit variables. */
export function childEnv(
  parent: NodeJS.ProcessEnv,
  extra: Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const v = parent[name];
    if (v !== undefined) env[name] = v;
  }
  return { ...env, ...extra };
}
