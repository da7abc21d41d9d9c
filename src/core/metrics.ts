import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  credentialsIssued: Counter;
  verifications: Counter<'channel'>;
}

/** One registry per app instance, so tests that build many apps never share counters. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests served, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency in seconds, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    credentialsIssued: new Counter({
      name: 'accolade_credentials_issued_total',
      help: 'Credentials newly issued (idempotent replays excluded).',
      registers: [registry],
    }),
    verifications: new Counter({
      name: 'accolade_verifications_total',
      help: 'Verifications answered, by channel (api, bulk, page).',
      labelNames: ['channel'],
      registers: [registry],
    }),
  };
}
