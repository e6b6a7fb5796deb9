export { type RunningDaemon, startDaemon } from './daemon.js';
export { DEV_ISSUER, DEV_PROJECT, devFiles, ensureDevSetup } from './dev-setup.js';
export { createLogger } from './logger.js';
