/** Builds the web console's page into cmd/bridgectl/dist/console-assets; resolves with that directory. */
export function buildConsole(opts?: { typecheck?: boolean }): Promise<string>;
