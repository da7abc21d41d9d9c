import { setTimeout as sleep } from 'node:timers/promises';
import { request, type SeededIssuer } from './load.harness.js';

/** One answered (or failed) request of the fault scenarios' traffic, times in ms since the run began. */
export interface Sample {
  start: number;
  end: number;
  kind: 'issue' | 'verify' | 'list';
  status: number;
  retryAfter: string | null;
  /** The body is the Error shape: a string `error` and a string `message`. */
  errorBody: boolean;
  key: string | null;
}

export interface ReadinessSample {
  at: number;
  status: number;
}

export interface TrafficClock {
  /** ms since the scenario began. */
  now(): number;
}

export function startClock(): TrafficClock {
  const t0 = performance.now();
  return { now: () => performance.now() - t0 };
}

/**
 * Closed-loop traffic: `concurrency` workers each cycle issue (unique key) → verify → list until
 * `stop()` says so, recording every answer. Bounded by `maxMs` whatever happens.
 */
export async function driveTraffic(
  baseUrl: string,
  seeded: SeededIssuer,
  options: {
    concurrency: number;
    keyPrefix: string;
    verifyId: string;
    clock: TrafficClock;
    stop(): boolean;
    maxMs: number;
  },
): Promise<Sample[]> {
  const samples: Sample[] = [];
  let counter = 0;
  const hardStop = options.clock.now() + options.maxMs;
  const worker = async () => {
    for (let step = 0; !options.stop() && options.clock.now() < hardStop; step++) {
      const kind = (['issue', 'verify', 'list'] as const)[step % 3] as Sample['kind'];
      const key = kind === 'issue' ? `${options.keyPrefix}${counter++}` : null;
      const start = options.clock.now();
      const res =
        kind === 'issue'
          ? await request(`${baseUrl}/api/v1/credentials`, {
              key: seeded.key,
              body: {
                definitionId: seeded.definitionId,
                recipientEmail: `fault-${key}@example.test`,
                completionKey: key,
              },
              timeoutMs: 60_000,
            })
          : kind === 'verify'
            ? await request(`${baseUrl}/api/v1/verify`, { body: { id: options.verifyId }, timeoutMs: 60_000 })
            : await request(`${baseUrl}/api/v1/credentials?limit=20`, { key: seeded.key, timeoutMs: 60_000 });
      samples.push({
        start,
        end: options.clock.now(),
        kind,
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        errorBody: typeof res.body.error === 'string' && typeof res.body.message === 'string',
        key,
      });
      // A refused connection answers at once; do not spin.
      if (res.status === 0) await sleep(50);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return samples;
}

/** Polls GET /health/ready every `everyMs` until stopped. */
export async function pollReadiness(
  baseUrl: string,
  options: { clock: TrafficClock; everyMs: number; stop(): boolean; maxMs: number },
): Promise<ReadinessSample[]> {
  const samples: ReadinessSample[] = [];
  const hardStop = options.clock.now() + options.maxMs;
  while (!options.stop() && options.clock.now() < hardStop) {
    const at = options.clock.now();
    const res = await request(`${baseUrl}/health/ready`, { timeoutMs: 5_000 });
    samples.push({ at, status: res.status });
    await sleep(options.everyMs);
  }
  return samples;
}

/** The first readiness sample at or after `from` with `status`, as ms after `from`. */
export function firstAfter(samples: ReadinessSample[], from: number, status: number): number | null {
  const hit = samples.find((s) => s.at >= from && s.status === status);
  return hit ? Math.round(hit.at - from) : null;
}

/** Statuses of the samples that started in [from, to). */
export function inWindow(samples: Sample[], from: number, to: number): Sample[] {
  return samples.filter((s) => s.start >= from && s.start < to);
}

export function statusCounts(samples: Sample[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) out[String(s.status)] = (out[String(s.status)] ?? 0) + 1;
  return out;
}

/** 5xx answers that break the rule "only 503 with Retry-After and an Error body". */
export function badFailures(samples: Sample[]): Sample[] {
  return samples.filter(
    (s) => s.status === 0 || (s.status >= 500 && (s.status !== 503 || !s.retryAfter || !s.errorBody)),
  );
}
