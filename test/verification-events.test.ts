import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventRecorder, EVENTS_HIGH_WATER } from '../src/modules/verification/events.js';
import { createRecentVerifiers, VERIFIER_WINDOW_MS } from '../src/modules/verification/recent-verifiers.js';
import type { VerifiableRow } from '../src/modules/verification/verification.repository.js';
import { createTestApp, dialects, manualClock, type TestApp } from './helpers.js';

function rows(count: number, from = 0): VerifiableRow[] {
  const row: VerifiableRow = {
    id: 'c0ffee00-0000-4000-8000-000000000001',
    issuer_id: 'i-backpressure',
    definition_id: 'd-backpressure',
    display_name: null,
    issued_on: '2026-11-21T10:00:00.000Z',
    expires_on: null,
    revoked_at: null,
    revoked_reason: null,
    source: 'api',
    reissued_from: null,
    issuer_slug: 'backpressure',
    issuer_name: 'Backpressure',
    brand_primary_color: null,
    brand_logo_url: null,
    definition_slug: 'badge',
    definition_name: 'Badge',
    image_url: null,
  };
  // Distinct credentials: one client's repeats of one credential are coalesced into one event.
  return Array.from({ length: count }, (_, i) => ({
    ...row,
    id: `c0ffee00-0000-4000-8000-${(from + i).toString().padStart(12, '0')}`,
  }));
}

const VERIFIER = { country: 'ZZ', client: '203.0.113.7' };

/** Whether the promise has settled after the pending microtasks and one macrotask turn. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe.each(dialects)('buffered verification events on %s', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(dialect);
  });
  afterAll(async () => {
    await t?.close();
  });

  const stored = async () =>
    (
      await t.database.db
        .selectFrom('verification_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('issuer_id', '=', 'i-backpressure')
        .executeTakeFirstOrThrow()
    ).n;

  it('answers at once under the high-water mark and waits for the writer above it', async () => {
    let openGate: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const recorder = createEventRecorder(t.app.core, { outbox: { enqueueEach: () => gate } });
    const before = await stored();

    expect(await settled(recorder.recordVerifications(rows(EVENTS_HIGH_WATER - 1), 'bulk', VERIFIER))).toBe(true);
    // The writer took its first batch and is held inside that transaction: the buffer cannot shrink.
    const over = recorder.recordVerifications(rows(300, EVENTS_HIGH_WATER), 'bulk', VERIFIER);
    expect(await settled(over)).toBe(false);

    openGate();
    await over;
    await recorder.flush();
    expect(Number(await stored()) - Number(before)).toBe(EVENTS_HIGH_WATER - 1 + 300);
  });

  it('writes what was recorded before a flush, leaving a partial batch recorded during it for the next', async () => {
    let openGate: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const recorder = createEventRecorder(t.app.core, { outbox: { enqueueEach: () => gate } });
    const before = Number(await stored());

    await recorder.recordVerifications(rows(10), 'api', VERIFIER);
    const flushed = recorder.flush();
    // Recorded while the first write is held open: fewer than a batch, so no transaction of its own.
    await recorder.recordVerifications(rows(30, 10), 'api', VERIFIER);
    openGate();
    await flushed;
    expect(Number(await stored()) - before).toBe(10);

    await recorder.flush();
    expect(Number(await stored()) - before).toBe(40);
  });

  it("coalesces one client's verifications of one credential on one channel over the window", async () => {
    const clock = manualClock('2026-11-21T10:00:00.000Z');
    const enqueued: number[] = [];
    const recorder = createEventRecorder(
      { ...t.app.core, clock },
      { outbox: { enqueueEach: async (_trx, _issuer, _event, sources) => void enqueued.push(sources.length) } },
    );
    const before = Number(await stored());
    const [one] = rows(1, 20_000);
    if (!one) throw new Error('no row');
    for (let i = 0; i < 50; i++) await recorder.recordVerifications([one, one], 'bulk', VERIFIER);
    await recorder.recordVerifications([one], 'api', VERIFIER);
    await recorder.recordVerifications([one], 'bulk', { country: 'ZZ', client: '198.51.100.9' });
    clock.advance(VERIFIER_WINDOW_MS - 1);
    await recorder.recordVerifications([one], 'bulk', VERIFIER);
    await recorder.flush();
    // bulk from the first client, api from it, bulk from a second client.
    expect(Number(await stored()) - before).toBe(3);
    expect(enqueued.reduce((a, b) => a + b, 0)).toBe(3);

    clock.advance(1);
    await recorder.recordVerifications([one], 'bulk', VERIFIER);
    await recorder.flush();
    expect(Number(await stored()) - before).toBe(4);
  });

  it('lets waiting callers go when the database refuses, keeping the events for the next flush', async () => {
    let refuse = true;
    const recorder = createEventRecorder(t.app.core, {
      outbox: {
        enqueueEach: async () => {
          if (refuse) throw new Error('database refuses writes');
        },
      },
    });
    const before = await stored();

    await recorder.recordVerifications(rows(EVENTS_HIGH_WATER + 5), 'bulk', VERIFIER);
    expect(Number(await stored()) - Number(before)).toBe(0);

    refuse = false;
    await recorder.flush();
    expect(Number(await stored()) - Number(before)).toBe(EVENTS_HIGH_WATER + 5);
  });
});

describe('recent verifiers', () => {
  it('remembers a key for the window only, and never more than its cap', () => {
    const recent = createRecentVerifiers({ windowMs: 1000, maxEntries: 100 });
    expect(recent.admit('a', 0)).toBe(true);
    expect(recent.admit('a', 999)).toBe(false);
    expect(recent.admit('a', 1000)).toBe(true);
    for (let i = 0; i < 10_000; i++) recent.admit(`k${i}`, 1500);
    expect(recent.size).toBe(100);
    // The newest are kept; the oldest were forgotten to make room.
    expect(recent.admit('k9999', 1500)).toBe(false);
    expect(recent.admit('k0', 1500)).toBe(true);
    // Expired entries are swept as time passes.
    recent.admit('late', 5000);
    expect(recent.size).toBe(1);
  });
});
