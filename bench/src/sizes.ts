/** How big each group runs: the full run, or `--quick` (a smoke test in CI). */
export interface Sizes {
  /** Lines of B1's file, the flood rows and the redaction rows. */
  events: number;
  /** Bytes of each line (before the newline). */
  width: number;
  /** Repetitions of each throughput measurement; rows report the median. */
  reps: number;
  /** Events retained and replayed in B5. */
  replay: number;
  /** Unary calls per B8 measurement, and how many in flight. */
  unaryCalls: number;
  inFlight: number;
  /** B6: sessions whose rings are filled, and events in each. */
  ringSessions: number;
  ringEvents: number;
  /** B6: idle sessions per daemon. */
  idleSessions: number;
  /** B7: sessions and subscribers, and the client connections they share. */
  capacitySessions: number;
  capacitySubscribers: number;
  capacityConnections: number;
  /** B7: the open streams whose live memory is measured. */
  memoryStreams: number;
  /** B3: sessions, the total rates (events per second) measured, and seconds at each. */
  latencySessions: number;
  latencyRates: number[];
  latencySeconds: number;
  /** B3: seconds at each rate before the measured ones, whose events are not counted (JIT, first reads). */
  latencyWarmupSeconds: number;
  /** B10: ended sessions in the store a daemon is restarted on. */
  restartSessions: number;
}

export const FULL: Sizes = {
  events: 200_000,
  width: 200,
  reps: 3,
  replay: 10_000,
  unaryCalls: 20_000,
  inFlight: 16,
  ringSessions: 20,
  ringEvents: 10_000,
  idleSessions: 500,
  capacitySessions: 5_000,
  capacitySubscribers: 50_000,
  capacityConnections: 10,
  memoryStreams: 5_000,
  latencySessions: 100,
  latencyRates: [1_000, 10_000],
  latencySeconds: 10,
  latencyWarmupSeconds: 1,
  restartSessions: 1_000,
};

export const QUICK: Sizes = {
  ...FULL,
  events: 20_000,
  reps: 1,
  unaryCalls: 2_000,
  ringSessions: 4,
  idleSessions: 50,
  capacitySessions: 200,
  capacitySubscribers: 2_000,
  capacityConnections: 4,
  memoryStreams: 500,
  latencySeconds: 2,
  latencyWarmupSeconds: 1,
  restartSessions: 100,
};
