import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventRecorder, EVENTS_HIGH_WATER } from '../src/modules/verification/events.js';
import type { VerifiableRow } from '../src/modules/verification/verification.repository.js';
import { createTestApp, dialects, type TestApp } from './helpers.js';

function rows(count: number): VerifiableRow[] {
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
  return Array.from({ length: count }, () => row);
}

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

    expect(await settled(recorder.recordVerifications(rows(EVENTS_HIGH_WATER - 1), 'bulk', 'ZZ'))).toBe(true);
    // The writer took its first batch and is held inside that transaction: the buffer cannot shrink.
    const over = recorder.recordVerifications(rows(300), 'bulk', 'ZZ');
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

    await recorder.recordVerifications(rows(10), 'api', 'ZZ');
    const flushed = recorder.flush();
    // Recorded while the first write is held open: fewer than a batch, so no transaction of its own.
    await recorder.recordVerifications(rows(30), 'api', 'ZZ');
    openGate();
    await flushed;
    expect(Number(await stored()) - before).toBe(10);

    await recorder.flush();
    expect(Number(await stored()) - before).toBe(40);
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

    await recorder.recordVerifications(rows(EVENTS_HIGH_WATER + 5), 'bulk', 'ZZ');
    expect(Number(await stored()) - Number(before)).toBe(0);

    refuse = false;
    await recorder.flush();
    expect(Number(await stored()) - Number(before)).toBe(EVENTS_HIGH_WATER + 5);
  });
});
