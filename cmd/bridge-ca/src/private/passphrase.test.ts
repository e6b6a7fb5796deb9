import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError, type CliIo } from '@agent-bridge/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { MIN_NEW_PASSPHRASE_LENGTH, readPassphrase } from './passphrase.js';

/** An io whose prompt answers from `answers` and records the questions. */
function fakeIo(env: Record<string, string>, answers?: string[]): CliIo & { asked: string[] } {
  const asked: string[] = [];
  return {
    stdout: () => {},
    stderr: () => {},
    env,
    cwd: '/',
    now: () => new Date(),
    asked,
    ...(answers
      ? {
          promptSecret: async (question: string) => {
            asked.push(question);
            return answers.shift() ?? '';
          },
        }
      : {}),
  };
}

async function refusal(promise: Promise<string>): Promise<CliError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CliError);
  return error as CliError;
}

describe('readPassphrase', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bridge-ca-passphrase-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const seven = 'x'.repeat(MIN_NEW_PASSPHRASE_LENGTH - 1);
  const eight = 'x'.repeat(MIN_NEW_PASSPHRASE_LENGTH);

  it('is 8 characters for a new key', () => {
    expect(MIN_NEW_PASSPHRASE_LENGTH).toBe(8);
  });

  it('refuses a short new passphrase from the environment with the usage exit code', async () => {
    for (const short of ['a', seven]) {
      const error = await refusal(
        readPassphrase(fakeIo({ BRIDGE_CA_PASSPHRASE: short }), undefined, { newKey: true }),
      );
      expect(error.exitCode).toBe(EXIT.usage);
      expect(error.message).toBe(
        `the new CA passphrase (BRIDGE_CA_PASSPHRASE) has ${short.length} character${short.length === 1 ? '' : 's'}; it needs at least 8, since whoever copies the encrypted key can guess a short one offline`,
      );
    }
    expect(
      await readPassphrase(fakeIo({ BRIDGE_CA_PASSPHRASE: eight }), undefined, { newKey: true }),
    ).toBe(eight);
  });

  it('refuses a short new passphrase from --passphrase-file, naming the file (its newline not counted)', async () => {
    const file = join(dir, 'short.txt');
    await writeFile(file, `${seven}\n`);
    const error = await refusal(readPassphrase(fakeIo({}), file, { newKey: true }));
    expect(error.exitCode).toBe(EXIT.usage);
    expect(error.message).toMatch(
      new RegExp(
        `^the new CA passphrase \\(passphrase file ${file}\\) has 7 characters; it needs at least 8`,
      ),
    );
    const long = join(dir, 'long.txt');
    await writeFile(long, `${eight}\n`);
    expect(await readPassphrase(fakeIo({}), long, { newKey: true })).toBe(eight);
  });

  it('refuses a short new passphrase typed at the prompt before asking to repeat it', async () => {
    const io = fakeIo({}, ['abc', 'abc']);
    const error = await refusal(readPassphrase(io, undefined, { newKey: true }));
    expect(error.exitCode).toBe(EXIT.usage);
    expect(error.message).toMatch(
      /^the new CA passphrase \(the passphrase typed\) has 3 characters;/,
    );
    expect(io.asked).toEqual(['CA key passphrase: ']);
    const ok = fakeIo({}, [eight, eight]);
    expect(await readPassphrase(ok, undefined, { newKey: true })).toBe(eight);
    expect(ok.asked).toEqual(['CA key passphrase: ', 'Repeat the passphrase: ']);
  });

  it('counts characters, not UTF-16 code units', async () => {
    // 7 characters, 8 code units: refused. 8 characters with an emoji: accepted.
    const sevenWithEmoji = `${'x'.repeat(6)}🔑`;
    expect(sevenWithEmoji.length).toBe(8);
    const error = await refusal(
      readPassphrase(fakeIo({ BRIDGE_CA_PASSPHRASE: sevenWithEmoji }), undefined, {
        newKey: true,
      }),
    );
    expect(error.message).toContain('has 7 characters');
    const eightWithEmoji = `${'x'.repeat(7)}🔑`;
    expect(
      await readPassphrase(fakeIo({ BRIDGE_CA_PASSPHRASE: eightWithEmoji }), undefined, {
        newKey: true,
      }),
    ).toBe(eightWithEmoji);
  });

  it('takes a short passphrase to open an existing key (the minimum is for new ones)', async () => {
    expect(await readPassphrase(fakeIo({ BRIDGE_CA_PASSPHRASE: 'a' }), undefined)).toBe('a');
    const file = join(dir, 'old.txt');
    await writeFile(file, 'ab\n');
    expect(await readPassphrase(fakeIo({}), file)).toBe('ab');
    const io = fakeIo({}, ['abc']);
    expect(await readPassphrase(io, undefined)).toBe('abc');
    expect(io.asked).toEqual(['CA key passphrase: ']);
  });
});
