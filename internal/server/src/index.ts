export {
  type BridgeServer,
  type BridgeServerOptions,
  readTlsFiles,
  startBridgeServer,
} from './bridge-server.js';
export { createBridgeService, type ServiceContext } from './bridge-service.js';
export { STATUS_OF, toServiceError } from './status-map.js';
export { StrictServerCredentials } from './strict-credentials.js';
