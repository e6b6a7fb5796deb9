import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../events.js';
import type { DriverContext } from '../structured-provider.js';
import { TurnTracker } from '../turn-tracker.js';
import { StreamJsonDriver } from './stream-json-driver.js';

// Lines captured from the real claude 2.1.197 (see the notes' provider-captures).
const capture = (name: string) =>
  readFileSync(new URL(`./testdata/${name}`, import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);

function setup(permissions: 'allow' | 'deny' = 'deny') {
  const events: AgentEvent[] = [];
  const written: Record<string, unknown>[] = [];
  const ctx: DriverContext = {
    spec: {} as DriverContext['spec'],
    options: {},
    permissions,
    turns: new TurnTracker(0, () => {}),
    emit: (e) => events.push(e),
    writeJson: (m) => written.push(m as Record<string, unknown>),
  };
  return { driver: new StreamJsonDriver(ctx), events, written };
}

describe('StreamJsonDriver on real claude output', () => {
  it('completes the initialize handshake on the CLI control_response (c3)', async () => {
    const { driver, written } = setup();
    const done = driver.handshake();
    expect(written).toEqual([
      { type: 'control_request', request_id: 'req_1', request: { subtype: 'initialize' } },
    ]);
    driver.onMessage(capture('c3-control.jsonl')[0]);
    await expect(done).resolves.toBeUndefined();
  });

  it('maps a text turn: deltas, the message, and TURN_COMPLETED with usage and cost (c4)', () => {
    const { driver, events, written } = setup();
    driver.send('hello');
    expect(written).toEqual([{ type: 'user', message: { role: 'user', content: 'hello' } }]);
    for (const line of capture('c4-text-turn.jsonl')) driver.onMessage(line);
    expect(events.map((e) => [e.type, e.text])).toEqual([
      ['TURN_STARTED', ''],
      ['AGENT_MESSAGE_DELTA', 'Hello'],
      ['AGENT_MESSAGE_DELTA', ' from'],
      ['AGENT_MESSAGE_DELTA', ' fake'],
      ['AGENT_MESSAGE_DELTA', ' model.'],
      ['AGENT_MESSAGE', 'Hello from fake model.'],
      ['TURN_COMPLETED', 'completed'],
    ]);
    expect(new Set(events.map((e) => e.turnId))).toEqual(new Set(['turn-1']));
    expect(events.at(-1)?.data).toMatchObject({
      status: 'completed',
      is_error: false,
      usage: {
        input_tokens: 12,
        output_tokens: 7,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
      total_cost_usd: 0.000235,
      duration_ms: 483,
      num_turns: 1,
      stop_reason: 'end_turn',
      model: 'claude-opus-4-8[1m]',
      claude_code_version: '2.1.197',
    });
  });

  it('reports each api_retry as an AGENT_ERROR that says which attempt (c5)', () => {
    const { driver, events } = setup();
    driver.send('hi');
    for (const line of capture('c5-api-retry.jsonl')) driver.onMessage(line);
    const retries = events.filter((e) => e.type === 'AGENT_ERROR');
    expect(retries).toHaveLength(9);
    expect(retries[0]).toMatchObject({
      text: 'claude API request failed: unknown; retry 1/10',
      turnId: 'turn-1',
      data: { reason: 'api_retry', attempt: 1, max_retries: 10 },
    });
  });

  it('judges an invalid key by is_error, not subtype, and reports it once (c6)', () => {
    const { driver, events } = setup();
    driver.send('hi');
    for (const line of capture('c6-invalid-key.jsonl')) driver.onMessage(line);
    expect(events.map((e) => e.type)).toEqual(['TURN_STARTED', 'AGENT_ERROR', 'TURN_COMPLETED']);
    expect(events[1]).toMatchObject({
      text: 'Invalid API key · Fix external API key',
      error: 'authentication_failed',
    });
    expect(events[2]).toMatchObject({
      error: 'Invalid API key · Fix external API key',
      data: { status: 'failed', subtype: 'success', is_error: true },
    });
  });

  it('answers can_use_tool by policy and records the answer', () => {
    for (const [policy, behavior] of [
      ['allow', 'allow'],
      ['deny', 'deny'],
    ] as const) {
      const { driver, events, written } = setup(policy);
      driver.send('go');
      const input = { command: 'touch created.txt' };
      driver.onMessage({
        type: 'control_request',
        request_id: '858a',
        request: { subtype: 'can_use_tool', tool_name: 'Bash', input, tool_use_id: 'toolu_1' },
      });
      expect(written.at(-1)).toMatchObject({
        type: 'control_response',
        response: { subtype: 'success', request_id: '858a', response: { behavior } },
      });
      expect(events.at(-1)).toMatchObject({
        type: 'TOOL_CALL',
        data: { permission: policy, tool_use_id: 'toolu_1', name: 'Bash', input },
      });
    }
  });

  it('queues an input sent during a turn and starts it after the result', () => {
    const { driver, written } = setup();
    driver.send('first');
    driver.send('second');
    expect(written).toHaveLength(1);
    driver.onMessage({ type: 'result', subtype: 'success', is_error: false, result: 'ok' });
    expect(written.at(-1)).toEqual({
      type: 'user',
      message: { role: 'user', content: 'second' },
    });
  });

  it('interrupt: acknowledged, the result ends the turn as interrupted without an AGENT_ERROR', async () => {
    const { driver, events, written } = setup();
    expect(await driver.interrupt()).toEqual({ interrupted: false, turnId: '' });
    driver.send('HANG');
    const res = driver.interrupt();
    const req = written.at(-1) as { request_id: string; request: { subtype: string } };
    expect(req.request.subtype).toBe('interrupt');
    driver.onMessage({
      type: 'control_response',
      response: { subtype: 'success', request_id: req.request_id },
    });
    driver.onMessage({
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
    });
    expect(await res).toEqual({ interrupted: true, turnId: 'turn-1' });
    expect(events.filter((e) => e.type === 'AGENT_ERROR')).toEqual([]);
    expect(events.at(-1)?.data).toMatchObject({ status: 'interrupted', interrupted: true });
  });
});
