export {
  type BridgeMetrics,
  type BridgeMetricsOptions,
  type CensusRow,
  type CountedEvent,
  type CountedRecord,
  createBridgeMetrics,
} from './bridge-metrics.js';
