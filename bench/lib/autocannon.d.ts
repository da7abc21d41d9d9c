declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
    total: number;
  }
  interface Result {
    requests: Histogram & { sent: number };
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
    statusCodeStats: Record<string, { count: number }>;
    '2xx': number;
    '4xx': number;
    '5xx': number;
  }
  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Called before each request; returns the request to send (used for unique bodies). */
    setupRequest?: (request: Request) => Request;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: Request[];
    /** Leaves the result for `aggregateResult` to merge with other instances' results. */
    skipAggregateResult?: boolean;
  }
  function autocannon(options: Options): Promise<Result>;
  namespace autocannon {
    /** Merges the results of instances run with `skipAggregateResult` (latencies and counts). */
    function aggregateResult(results: Result[], options: { url: string; connections?: number }): Result;
  }
  export default autocannon;
}
