import { readFileSync } from 'node:fs';
import { descriptorSetPath } from '@agent-bridge/proto';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  type DescriptorProto,
  type FileDescriptorProto,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
} from '@bufbuild/protobuf/wkt';
import type { Server } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { protoPath as healthProtoPath } from 'grpc-health-check';

/**
 * Server reflection for bridge.v1 and grpc.health.v1, so generic tools
 * (buf curl, grpcurl, Postman) work without .proto files. The bridge
 * descriptors come from the committed descriptor set, which includes the
 * imported well-known types; proto-loader's own descriptors drop imports and
 * would leave the service unresolvable. health.proto has no imports, so
 * proto-loader's descriptor of it is complete, but not valid as it comes:
 * see `withProtocMapEntryNames`.
 */
export function addReflection(server: Server): void {
  const set = fromBinary(FileDescriptorSetSchema, readFileSync(descriptorSetPath));
  const bridgeFiles = set.file.map((f) => Buffer.from(toBinary(FileDescriptorProtoSchema, f)));
  const pkg: Record<string, { fileDescriptorProtos: Buffer[] }> = {
    'bridge.v1': { fileDescriptorProtos: bridgeFiles },
  };
  // Every message of health.proto carries the same file descriptor; the
  // reflection service keeps the first file of each name.
  for (const [name, def] of Object.entries(loadSync(healthProtoPath))) {
    if ('fileDescriptorProtos' in def && Array.isArray(def.fileDescriptorProtos)) {
      pkg[name] = { fileDescriptorProtos: def.fileDescriptorProtos.map(withProtocMapEntryNames) };
    }
  }
  new ReflectionService(
    pkg as unknown as ConstructorParameters<typeof ReflectionService>[0],
  ).addToServer(server);
}

/**
 * protobufjs (under proto-loader) names the synthetic entry message of a map
 * field after the field ("Statuses"), where protoc and the descriptor rules
 * require `<FieldInCamelCase>Entry` ("StatusesEntry"). Go's protodesc, used
 * by buf curl and grpcurl, rejects the whole file for it ("invalid map:
 * incorrect implicit map entry name"), so the health service — whose
 * HealthListResponse has `map<string, HealthCheckResponse> statuses` — was
 * listed but could not be resolved. Renaming the entries (and the fields'
 * references to them) makes the descriptor what protoc would have written.
 */
export function withProtocMapEntryNames(bytes: Uint8Array): Buffer {
  const file: FileDescriptorProto = fromBinary(FileDescriptorProtoSchema, bytes);
  for (const message of file.messageType) renameMapEntries(message);
  return Buffer.from(toBinary(FileDescriptorProtoSchema, file));
}

function renameMapEntries(message: DescriptorProto): void {
  for (const nested of message.nestedType) renameMapEntries(nested);
  const entries = new Map(
    message.nestedType.filter((n) => n.options?.mapEntry).map((n) => [n.name, n]),
  );
  for (const field of message.field) {
    const ref = field.typeName;
    const last = ref.slice(ref.lastIndexOf('.') + 1);
    const entry = entries.get(last);
    if (!entry) continue;
    const canonical = mapEntryName(field.name);
    entry.name = canonical;
    field.typeName = ref.slice(0, ref.length - last.length) + canonical;
  }
}

/** protoc's rule: snake_case field → CamelCase, plus "Entry". */
function mapEntryName(field: string): string {
  const camel = field.replace(/_+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase());
  return `${camel.charAt(0).toUpperCase()}${camel.slice(1)}Entry`;
}
