/** Time at the edge: services take a Clock so tests can move it. */
export interface Clock {
  now(): Date;
  /** The same instant in milliseconds since the epoch, for a path run on every request, where a Date each time costs. */
  nowMs(): number;
}

export const systemClock: Clock = { now: () => new Date(), nowMs: () => Date.now() };
