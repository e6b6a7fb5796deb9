export { fleetElsewhere } from './fleet-elsewhere.js';
export { type Fleet, type FleetMembership, keepJoining } from './join-fleet.js';
export {
  type ReplicaSourceStore,
  type ReplicatedStore,
  type ReplicatedStoreOptions,
  replicatedStore,
} from './replicated-store.js';
export type { ReplicaReport } from './session-replica.js';
