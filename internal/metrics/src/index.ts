export {
  type BridgeMetrics,
  type BridgeMetricsOptions,
  type CensusRow,
  type CountedEvent,
  type CountedRecord,
  createBridgeMetrics,
  type FleetReplication,
} from './bridge-metrics.js';
