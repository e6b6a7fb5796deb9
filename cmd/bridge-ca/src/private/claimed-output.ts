import type { CommandContext } from '@agent-bridge/cli';
import { checkOutputs, PUBLIC_MODE, writeOutputs } from './files.js';
import { flag, requiredString } from './option-values.js';

/** The one public file a command writes: a certificate, a CRL or a bundle. */
export interface ClaimedOutput {
  /** --out, resolved against the working directory. */
  readonly path: string;
  /** Writes it whole (temporary name, then rename), mode 0644. */
  write(content: string): Promise<void>;
}

/**
 * Reads --out and --force and refuses an existing file at once, before a
 * passphrase is asked or a CA opened: a refusal then costs nothing.
 */
export async function claimOutput(ctx: CommandContext): Promise<ClaimedOutput> {
  const path = ctx.path(requiredString(ctx.values, 'out'));
  const force = flag(ctx.values, 'force');
  await checkOutputs([path], force);
  return {
    path,
    write: (content) => writeOutputs([{ path, content, mode: PUBLIC_MODE }], force),
  };
}
