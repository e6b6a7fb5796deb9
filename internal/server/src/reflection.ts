import { readFileSync } from 'node:fs';
import { descriptorSetPath } from '@agent-bridge/proto';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
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
 * proto-loader's descriptor of it is complete.
 */
export function addReflection(server: Server): void {
  const set = fromBinary(FileDescriptorSetSchema, readFileSync(descriptorSetPath));
  const bridgeFiles = set.file.map((f) => Buffer.from(toBinary(FileDescriptorProtoSchema, f)));
  const health = loadSync(healthProtoPath);
  const pkg = { ...health, 'bridge.v1': { fileDescriptorProtos: bridgeFiles } };
  new ReflectionService(
    pkg as unknown as ConstructorParameters<typeof ReflectionService>[0],
  ).addToServer(server);
}
