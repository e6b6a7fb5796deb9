import { CliError } from '@agent-bridge/cli';
import { describe, expect, it } from 'vitest';
import { EXIT } from './exit-codes.js';
import { listedDaemon } from './fleet-connection.js';

describe('listedDaemon', () => {
  it('reads NAME=HOST:PORT, IPv6 hosts in brackets', () => {
    expect(listedDaemon('build-1=10.0.0.7:9445')).toEqual({
      name: 'build-1',
      target: '10.0.0.7:9445',
    });
    expect(listedDaemon('b.2=[::1]:1')).toEqual({ name: 'b.2', target: '[::1]:1' });
    expect(listedDaemon('x=bridge.example.com:65535').target).toBe('bridge.example.com:65535');
  });

  it.each([
    'host:9445',
    '=host:9445',
    'a=host',
    'a=host:0',
    'a=host:65536',
    'a b=host:1',
    'a=ho st:1',
    `${'n'.repeat(65)}=host:1`,
  ])('refuses %j as a usage error naming the form', (spec) => {
    let thrown: unknown;
    try {
      listedDaemon(spec);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(CliError);
    expect((thrown as CliError).exitCode).toBe(EXIT.usage);
    expect((thrown as CliError).message).toBe(
      `--daemon is NAME=HOST:PORT (a name of your choosing, 1 to 64 of A-Z a-z 0-9 _ . -), not "${spec}"`,
    );
  });
});
