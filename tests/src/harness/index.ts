export * from './client.js';
export * from './daemon.js';
export * from './fixture.js';
export * from './pki.js';
export * from './processes.js';
export * from './sessions.js';
export * from './tcp-proxy.js';
export * from './tokens.js';
