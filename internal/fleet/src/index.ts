export { type FleetCollabOptions, fleetCollab } from './collab-relay.js';
export { fleetElsewhere } from './fleet-elsewhere.js';
export { type Fleet, type FleetMembership, keepJoining } from './join-fleet.js';
export { RemoteMembers } from './remote-members.js';
export {
  type ReplicaSourceStore,
  type ReplicatedStore,
  type ReplicatedStoreOptions,
  replicatedStore,
} from './replicated-store.js';
export type { ReplicaReport } from './session-replica.js';
