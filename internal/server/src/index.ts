export { type BridgeServer, type BridgeServerOptions, startBridgeServer } from './bridge-server.js';
export { wireEventCodec } from './event-wire.js';
export type { MetricsSource } from './metrics-listener.js';
export type { CallObserver, ServiceContext } from './service-context.js';
export { STATUS_OF, toServiceError } from './status-map.js';
export { loadTlsMaterial, readTlsFiles, type TlsMaterial } from './tls-material.js';
export {
  type AgentToolsPort,
  startToolSocket,
  type ToolSocket,
  type ToolSocketOptions,
} from './tool-socket.js';
