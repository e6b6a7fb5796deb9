import { readFileSync } from 'node:fs';
import {
  createFileRegistry,
  type DescField,
  type DescMessage,
  fromBinary,
} from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import { bridgeServiceName, descriptorSetPath } from './index.js';

const set = fromBinary(FileDescriptorSetSchema, readFileSync(descriptorSetPath));
// createFileRegistry throws when a file's import is missing from the set.
const registry = createFileRegistry(set);

function message(name: string): DescMessage {
  const m = registry.getMessage(`bridge.v1.${name}`);
  if (!m) throw new Error(`message bridge.v1.${name} is not in the descriptor set`);
  return m;
}

function fieldNames(name: string): string[] {
  return message(name).fields.map((f: DescField) => f.name);
}

describe('descriptor set', () => {
  it('holds bridge.proto with its imports and resolves the service', () => {
    const files = set.file.map((f) => f.name);
    expect(files).toEqual(
      expect.arrayContaining([
        'bridge/v1/bridge.proto',
        'google/protobuf/timestamp.proto',
        'google/protobuf/struct.proto',
      ]),
    );
    const svc = registry.getService(bridgeServiceName);
    expect(svc?.typeName).toBe('bridge.v1.BridgeService');
    expect(svc?.methods.map((m) => m.name)).toEqual([
      'StartSession',
      'StopSession',
      'GetSession',
      'ListSessions',
      'SendInput',
      'InterruptTurn',
      'StreamEvents',
      'StreamEventBatches',
      'AckEvents',
      'Health',
      'ListProviders',
      'GetRevocationLists',
      'RespondPermission',
      'PostContext',
      'ReadContext',
      'AckContext',
      'SendMessage',
      'ListMessages',
    ]);
    const kinds = Object.fromEntries(svc!.methods.map((m) => [m.name, m.methodKind]));
    expect(kinds.StreamEvents).toBe('server_streaming');
    expect(kinds.StreamEventBatches).toBe('server_streaming');
    expect(kinds.StartSession).toBe('unary');
    const byName = Object.fromEntries(svc!.methods.map((m) => [m.name, m]));
    expect(byName.StreamEventBatches?.input.typeName).toBe('bridge.v1.StreamEventsRequest');
    expect(byName.StreamEventBatches?.output.typeName).toBe('bridge.v1.SessionEventBatch');
    expect(byName.StreamEvents?.output.typeName).toBe('bridge.v1.SessionEvent');
  });

  it('uses well-known types for timestamps and the event payload', () => {
    const ev = message('SessionEvent');
    expect(ev.field.timestamp?.message?.typeName).toBe('google.protobuf.Timestamp');
    expect(ev.field.data?.message?.typeName).toBe('google.protobuf.Struct');
  });
});

// These message, field and enum names are the public contract: clients,
// generated code in other languages and JSON payloads (buf curl) use them, so
// a rename here breaks every integrator.
describe('public contract names', () => {
  const required: Record<string, string[]> = {
    StartSessionRequest: ['project_id', 'session_id', 'repo_path', 'provider', 'agent_opts'],
    StartSessionResponse: ['session_id', 'status', 'created_at'],
    StopSessionRequest: ['session_id', 'force'],
    StopSessionResponse: ['status'],
    GetSessionRequest: ['session_id'],
    GetSessionResponse: [
      'session_id',
      'project_id',
      'provider',
      'status',
      'created_at',
      'stopped_at',
      'error',
      'pid',
      'exit_code',
      'exit_signal',
      'repo_path',
      'oldest_seq',
      'last_seq',
      'subscriber_count',
    ],
    ListSessionsRequest: ['project_id', 'statuses', 'page_size', 'page_token'],
    ListSessionsResponse: ['sessions', 'next_page_token'],
    SendInputRequest: ['session_id', 'text', 'idempotency_key'],
    SendInputResponse: ['accepted', 'seq'],
    StreamEventsRequest: ['session_id', 'after_seq', 'subscriber_id'],
    SessionEvent: [
      'seq',
      'timestamp',
      'session_id',
      'project_id',
      'provider',
      'type',
      'stream',
      'text',
      'done',
      'error',
      'turn_id',
      'data',
    ],
    SessionEventBatch: ['events'],
    AckEventsRequest: ['session_id', 'subscriber_id', 'ack_seq'],
    InterruptTurnRequest: ['session_id'],
    HealthResponse: [
      'status',
      'providers',
      'version',
      'server_instance_id',
      'started_at',
      'active_sessions',
      'retained_sessions',
    ],
    ProviderHealth: ['provider', 'available', 'error'],
    ProviderInfo: ['id', 'binary_path', 'version', 'available', 'error', 'capabilities'],
    ProviderCapabilities: ['structured_events', 'multi_turn', 'interrupt', 'permission_requests'],
  };

  for (const [msg, fields] of Object.entries(required)) {
    it(`${msg} has ${fields.join(', ')}`, () => {
      expect(fieldNames(msg)).toEqual(expect.arrayContaining(fields));
    });
  }

  it('after_seq tracks presence, so 0 ("from the start") differs from unset', () => {
    expect(message('StreamEventsRequest').field.afterSeq?.proto.proto3Optional).toBe(true);
  });

  it('seq fields are uint64', () => {
    for (const [m, f] of [
      ['SessionEvent', 'seq'],
      ['SendInputResponse', 'seq'],
      ['AckEventsRequest', 'ack_seq'],
      ['StreamEventsRequest', 'after_seq'],
    ] as const) {
      const field = message(m).fields.find((x) => x.name === f);
      expect(field?.scalar, `${m}.${f}`).toBe(4 /* ScalarType.UINT64 */);
    }
  });

  it('EventType has the lifecycle values, the agent-level ones and the collaboration ones', () => {
    const e = registry.getEnum('bridge.v1.EventType');
    expect(e?.values.map((v) => v.name)).toEqual([
      'EVENT_TYPE_UNSPECIFIED',
      'EVENT_TYPE_SESSION_STARTED',
      'EVENT_TYPE_SESSION_STOPPED',
      'EVENT_TYPE_SESSION_FAILED',
      'EVENT_TYPE_STDOUT',
      'EVENT_TYPE_STDERR',
      'EVENT_TYPE_INPUT_RECEIVED',
      'EVENT_TYPE_BUFFER_OVERFLOW',
      'EVENT_TYPE_TURN_STARTED',
      'EVENT_TYPE_AGENT_MESSAGE_DELTA',
      'EVENT_TYPE_AGENT_MESSAGE',
      'EVENT_TYPE_TOOL_CALL',
      'EVENT_TYPE_TOOL_RESULT',
      'EVENT_TYPE_TURN_COMPLETED',
      'EVENT_TYPE_AGENT_ERROR',
      'EVENT_TYPE_PERMISSION_REQUESTED',
      'EVENT_TYPE_PERMISSION_RESOLVED',
      'EVENT_TYPE_SESSION_RESUMED',
      'EVENT_TYPE_CONTEXT_POSTED',
      'EVENT_TYPE_MESSAGE_SENT',
      'EVENT_TYPE_MESSAGE_RECEIVED',
    ]);
    expect(e?.values[0]?.number).toBe(0);
  });

  it('SessionStatus covers the five session states with 0 = UNSPECIFIED', () => {
    const e = registry.getEnum('bridge.v1.SessionStatus');
    expect(e?.values.map((v) => v.name)).toEqual([
      'SESSION_STATUS_UNSPECIFIED',
      'SESSION_STATUS_STARTING',
      'SESSION_STATUS_RUNNING',
      'SESSION_STATUS_STOPPING',
      'SESSION_STATUS_STOPPED',
      'SESSION_STATUS_FAILED',
    ]);
  });
});
