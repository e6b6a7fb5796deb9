import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { loadSync } from '@grpc/proto-loader';
import { protoPath } from 'grpc-health-check';
import { describe, expect, it } from 'vitest';
import { withProtocMapEntryNames } from './reflection.js';

const healthFile = () => {
  const def = loadSync(protoPath)['grpc.health.v1.HealthListResponse'];
  const files = def && 'fileDescriptorProtos' in def ? def.fileDescriptorProtos : undefined;
  const bytes = Array.isArray(files) ? files[0] : undefined;
  if (!bytes) throw new Error('proto-loader gave no descriptor for health.proto');
  return bytes;
};

describe('withProtocMapEntryNames', () => {
  it('renames the map entry of HealthListResponse.statuses as protoc would, and its reference', () => {
    const before = fromBinary(FileDescriptorProtoSchema, healthFile());
    const after = fromBinary(FileDescriptorProtoSchema, withProtocMapEntryNames(healthFile()));
    const list = (f: typeof before) => f.messageType.find((m) => m.name === 'HealthListResponse');
    // What proto-loader produces, which Go's protodesc (buf curl, grpcurl) rejects.
    expect(list(before)?.nestedType.map((n) => n.name)).toEqual(['Statuses']);
    expect(list(after)?.nestedType.map((n) => n.name)).toEqual(['StatusesEntry']);
    expect(list(after)?.field.find((f) => f.name === 'statuses')?.typeName).toMatch(
      /(^|\.)StatusesEntry$/,
    );
    // Everything else is left as it was.
    expect(after.service).toEqual(before.service);
    expect(after.messageType.map((m) => m.name)).toEqual(before.messageType.map((m) => m.name));
  });
});
