export { type BridgeServer, type BridgeServerOptions, startBridgeServer } from './bridge-server.js';
export { createBridgeService, type ServiceContext } from './bridge-service.js';
export { STATUS_OF, toServiceError } from './status-map.js';
export { loadTlsMaterial, readTlsFiles, type TlsMaterial } from './tls-material.js';
