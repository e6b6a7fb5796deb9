import type { ReadStream } from 'node:tty';

/**
 * Reads a line from a terminal with echo off. Only used when stdin is a TTY;
 * scripts use --passphrase-file or BRIDGE_CA_PASSPHRASE instead.
 */
export function promptSecretOnTty(
  input: ReadStream,
  output: NodeJS.WritableStream,
  question: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    output.write(question);
    input.setRawMode(true);
    input.resume();
    input.setEncoding('utf8');
    const finish = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      output.write('\n');
      if (error) reject(error);
      else resolve(answer);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(new Error('interrupted'));
        if (char === '\u007f' || char === '\b') answer = answer.slice(0, -1);
        else answer += char;
      }
    };
    input.on('data', onData);
  });
}
