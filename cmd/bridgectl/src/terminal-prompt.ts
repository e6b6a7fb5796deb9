import { createInterface } from 'node:readline/promises';
import type { CtlIo } from './ctl-io.js';

/**
 * CtlIo.readAnswer for the real process: a readline question on the
 * terminal, or undefined when stdin or stdout is not one.
 */
export function terminalReadAnswer(
  stdin: NodeJS.ReadStream,
  stdout: NodeJS.WriteStream,
): CtlIo['readAnswer'] {
  if (stdin.isTTY !== true || stdout.isTTY !== true) return undefined;
  return async (question, signal) => {
    // One interface per question, closed after it: an open one would keep
    // stdin read and the process alive once the stream ends.
    const rl = createInterface({ input: stdin, output: stdout, terminal: true });
    // readline takes Ctrl-C for itself at a prompt; pass it on, so it
    // interrupts bridgectl as it does anywhere else.
    rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
    try {
      return await rl.question(question, { signal });
    } catch (error) {
      if (signal.aborted) return undefined;
      throw error;
    } finally {
      rl.close();
    }
  };
}
