export { LmdbStore, type LmdbStoreOptions } from './lmdb-store.js';
export { StoreLockedError } from './private/path-lock.js';
export { StoreDamagedError } from './private/truncation-check.js';
