/**
 * Per-endpoint circuit breaker of one dispatcher. After BREAKER_FAILURES consecutive failed attempts
 * (an error status, a timeout, a refused connection) an endpoint is skipped for a cool-down, which
 * doubles on each failed probe up to BREAKER_MAX_OPEN_MS. Once the cool-down passes one attempt
 * probes it (half-open); a success closes it. Skipped rows stay pending and spend none of their
 * attempts, so a receiver that is down loses nothing and holds no one else's deliveries.
 */
export const BREAKER_FAILURES = 5;
export const BREAKER_OPEN_MS = 30_000;
export const BREAKER_MAX_OPEN_MS = 10 * 60_000;

interface Trip {
  failures: number;
  openUntil: number;
  openMs: number;
}

export interface EndpointBreaker {
  /** How many attempts `endpoint` may have in flight at `now`: 0 while open, 1 while half-open. */
  allowance(endpoint: string, now: number, limit: number): number;
  success(endpoint: string): void;
  failure(endpoint: string, now: number): void;
  /** Whether the endpoint is skipped at `now`. */
  isOpen(endpoint: string, now: number): boolean;
  /** The endpoints skipped at `now`. */
  open(now: number): string[];
}

export function createEndpointBreaker(): EndpointBreaker {
  // Only endpoints whose last attempt failed have an entry; a success removes it.
  const trips = new Map<string, Trip>();
  return {
    allowance(endpoint, now, limit) {
      const trip = trips.get(endpoint);
      if (!trip || trip.failures < BREAKER_FAILURES) return limit;
      return now < trip.openUntil ? 0 : 1;
    },
    success(endpoint) {
      trips.delete(endpoint);
    },
    failure(endpoint, now) {
      const trip = trips.get(endpoint) ?? { failures: 0, openUntil: 0, openMs: 0 };
      trip.failures++;
      // Attempts that were already in flight when it opened do not lengthen the cool-down.
      if (trip.failures >= BREAKER_FAILURES && now >= trip.openUntil) {
        trip.openMs = trip.openMs === 0 ? BREAKER_OPEN_MS : Math.min(trip.openMs * 2, BREAKER_MAX_OPEN_MS);
        trip.openUntil = now + trip.openMs;
      }
      trips.set(endpoint, trip);
    },
    isOpen(endpoint, now) {
      const trip = trips.get(endpoint);
      return trip !== undefined && trip.failures >= BREAKER_FAILURES && now < trip.openUntil;
    },
    open(now) {
      return [...trips.entries()]
        .filter(([, trip]) => trip.failures >= BREAKER_FAILURES && now < trip.openUntil)
        .map(([endpoint]) => endpoint);
    },
  };
}
