import type { FastifyBaseLogger } from 'fastify';
import type { Job } from '../../core/job.js';

export interface PollingJob extends Job {
  /** Runs a pass now instead of at the next tick (or right after the pass in progress). */
  kick(): void;
}

/**
 * Runs `pass` at start and then every `intervalMs`, never two passes at once. A failing pass (the
 * database restarting, say) is logged and retried at the next tick. `stop` waits for the pass in
 * progress, so a shutdown never abandons work it has claimed.
 */
export function createPollingJob(options: {
  name: string;
  intervalMs: number;
  log: Pick<FastifyBaseLogger, 'warn'>;
  pass: () => Promise<void>;
}): PollingJob {
  let running = false;
  let timer: NodeJS.Timeout | null = null;
  let current: Promise<void> | null = null;
  let again = false;

  function schedule(delayMs: number): void {
    if (!running) return;
    timer = setTimeout(tick, delayMs);
  }

  function tick(): void {
    timer = null;
    current = (async () => {
      do {
        again = false;
        try {
          await options.pass();
        } catch (err) {
          options.log.warn({ err, job: options.name }, 'background pass failed; retrying at the next tick');
        }
      } while (again && running);
    })().finally(() => {
      current = null;
      schedule(options.intervalMs);
    });
  }

  return {
    name: options.name,
    start() {
      if (running) return;
      running = true;
      schedule(0);
    },
    kick() {
      if (!running) return;
      if (current) {
        again = true;
        return;
      }
      if (timer) clearTimeout(timer);
      tick();
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = null;
      await current;
    },
  };
}
