// The bridge.v1 contract as TypeScript: message types with encode/decode,
// the grpc-js service definition and client constructor, and the path of the
// descriptor set (with imports) that server reflection needs.
import { fileURLToPath } from 'node:url';

export * from './gen/bridge/v1/bridge.js';

/** Absolute path of `descriptor/bridge.binpb`: a FileDescriptorSet of bridge.proto and its imports. */
export const descriptorSetPath: string = fileURLToPath(
  new URL('../descriptor/bridge.binpb', import.meta.url),
);

/** Fully qualified name of the service, e.g. for reflection and health. */
export const bridgeServiceName = 'bridge.v1.BridgeService';
