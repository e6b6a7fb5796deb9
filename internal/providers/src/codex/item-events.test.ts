import { describe, expect, it } from 'vitest';
import { itemCompleted, itemStarted } from './item-events.js';

describe('item events', () => {
  it('ignores user messages and reasoning; an agent message completes as AGENT_MESSAGE', () => {
    expect(itemStarted({ type: 'userMessage', id: 'u' }, 't')).toBeUndefined();
    expect(itemCompleted({ type: 'reasoning', id: 'r', summary: [] }, 't')).toBeUndefined();
    expect(itemStarted({ type: 'agentMessage', id: 'm', text: '' }, 't')).toBeUndefined();
    expect(itemCompleted({ type: 'agentMessage', id: 'm', text: 'Hi', phase: null }, 't')).toEqual({
      type: 'AGENT_MESSAGE',
      stream: 'stdout',
      text: 'Hi',
      turnId: 't',
      data: { item_id: 'm' },
    });
  });

  it('a declined file change is an error result carrying its changes', () => {
    const item = {
      type: 'fileChange',
      id: 'c',
      changes: [{ path: '/r/a.txt', kind: { type: 'add' }, diff: 'x' }],
      status: 'declined',
    };
    expect(itemStarted({ ...item, status: 'inProgress' }, 't')).toMatchObject({
      type: 'TOOL_CALL',
      text: '/r/a.txt',
      data: { tool_call_id: 'c', name: 'fileChange', input: { changes: item.changes } },
    });
    expect(itemCompleted(item, 't')).toMatchObject({
      type: 'TOOL_RESULT',
      text: '/r/a.txt (declined)',
      data: { status: 'declined', is_error: true, output: item.changes },
    });
  });

  it('an MCP call with an error, and a command with a non-zero exit, are errors', () => {
    expect(
      itemCompleted(
        {
          type: 'mcpToolCall',
          id: 'm',
          server: 's',
          tool: 't',
          status: 'completed',
          error: { message: 'no' },
        },
        't',
      )?.data,
    ).toMatchObject({ name: 'mcpToolCall', is_error: true, output: { message: 'no' } });
    expect(
      itemCompleted(
        {
          type: 'commandExecution',
          id: 'c',
          command: 'false',
          status: 'completed',
          exitCode: 1,
          aggregatedOutput: 'x',
        },
        't',
      )?.data,
    ).toMatchObject({ exit_code: 1, is_error: true, output: 'x' });
  });
});
