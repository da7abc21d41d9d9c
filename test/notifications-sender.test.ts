import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIds, systemClock } from '../src/core/clock.js';
import { sha256Hex } from '../src/core/hashing.js';
import type { Mailer, MailMessage } from '../src/modules/notifications/notifications.mailer.js';
import { createNotificationRepository } from '../src/modules/notifications/notifications.repository.js';
import { createNotificationSender } from '../src/modules/notifications/notifications.sender.js';
import { createTestApp, dialects, type TestApp } from './helpers.js';

/** More than two status statements' worth, and more than a queue keeps before compacting. */
const MESSAGES = 1_200;

describe.each(dialects)('the notification sender on %s', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(dialect);
  });
  afterAll(async () => {
    await t.close();
  });

  const rowCount = async (issuerId: string) =>
    Number(
      (
        await t.database.db
          .selectFrom('credential_notifications')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('issuer_id', '=', issuerId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("writes a large batch's queued rows a statement at a time, and sends each message only once its row holds its token", async () => {
    const issuerId = `sender-${dialect}`;
    const sent: { to: string; rowHasToken: boolean }[] = [];
    const mailer: Mailer = {
      async send(message: MailMessage) {
        const token = /\/unsubscribe\/([\w-]+)>/.exec(message.headers['List-Unsubscribe'] ?? '')?.[1] ?? '';
        const row = await t.database.db
          .selectFrom('credential_notifications')
          .select('credential_id')
          .where('unsubscribe_token_hash', '=', sha256Hex(token))
          .executeTakeFirst();
        sent.push({ to: message.to, rowHasToken: row !== undefined });
        return { ok: true };
      },
      close() {},
    };
    const sender = createNotificationSender(
      {
        db: t.database.db,
        dialect: t.database.dialect,
        clock: systemClock,
        ids: randomIds,
        log: t.app.log,
        config: t.config,
      },
      mailer,
      { ratePerMinute: 6_000_000, maxQueued: 10_000 },
      async (message, token) => ({
        from: { name: 'Issuer', address: 'badges@example.test' },
        to: message.email,
        replyTo: null,
        subject: 'Your badge',
        html: '<p>Your badge</p>',
        text: 'Your badge',
        headers: { 'List-Unsubscribe': `<https://badges.test/notifications/unsubscribe/${token}>` },
      }),
    );
    const emails = Array.from({ length: MESSAGES }, (_, i) => `earner${i}@example.test`);
    for (const [i, email] of emails.entries()) {
      sender.enqueue({
        issuerId,
        credentialId: `cred-${dialect}-${i}`,
        definitionId: 'definition',
        issuedOn: '2026-11-26T00:00:00.000Z',
        recipientHash: sha256Hex(email),
        email,
      });
    }
    // Queuing wrote nothing; the pass writes the rows a statement at a time, and the event loop
    // turns between statements: some turn sees a part of them written.
    expect(await rowCount(issuerId)).toBe(0);
    let drained = false;
    const draining = sender.drain().finally(() => {
      drained = true;
    });
    const seen = new Set<number>();
    while (!drained) {
      seen.add(await rowCount(issuerId));
      await nextTurn();
    }
    await draining;
    expect([...seen].some((n) => n > 0 && n < MESSAGES)).toBe(true);

    expect(sent.map((s) => s.to).sort()).toEqual([...emails].sort());
    expect(sent.every((s) => s.rowHasToken)).toBe(true);
    const rows = await t.database.db
      .selectFrom('credential_notifications')
      .select(['status', 'attempts'])
      .where('issuer_id', '=', issuerId)
      .execute();
    expect(rows).toHaveLength(MESSAGES);
    expect(rows.every((row) => row.status === 'sent' && Number(row.attempts) === 1)).toBe(true);
    expect(sender.pending()).toBe(0);
    await sender.stop();
  });

  it('writes status batches of any size, then their newer statuses, in statements of a few fixed sizes', async () => {
    const issuerId = `sizes-${dialect}`;
    const repo = createNotificationRepository(t.database.db);
    const counts = [1, 37, 500, 537, 1_011];
    const rows = counts.flatMap((count, batch) =>
      Array.from({ length: count }, (_, i) => ({
        credential_id: `size-${dialect}-${batch}-${i}`,
        issuer_id: issuerId,
        recipient_hash: sha256Hex(`size${batch}-${i}@example.test`),
        status: 'queued',
        detail: null,
        attempts: 0,
        unsubscribe_token_hash: sha256Hex(`token-${dialect}-${batch}-${i}`),
        created_at: '2026-11-26T00:00:00.000Z',
        updated_at: '2026-11-26T00:00:00.000Z',
      })),
    );
    let start = 0;
    for (const count of counts) {
      await repo.saveStatuses(t.database.dialect, rows.slice(start, start + count));
      start += count;
    }
    expect(await rowCount(issuerId)).toBe(rows.length);
    const sentRows = rows
      .slice(0, 538)
      .map((row) => ({ ...row, status: 'sent', attempts: 1, unsubscribe_token_hash: null }));
    await repo.saveStatuses(t.database.dialect, sentRows);
    const stored = await t.database.db
      .selectFrom('credential_notifications')
      .select(['status', 'unsubscribe_token_hash'])
      .where('issuer_id', '=', issuerId)
      .execute();
    expect(stored).toHaveLength(rows.length);
    expect(stored.filter((row) => row.status === 'sent')).toHaveLength(538);
    // A later status never replaces the stored token's hash: the unsubscribe link keeps working.
    expect(stored.every((row) => row.unsubscribe_token_hash !== null)).toBe(true);
  });

  it("claims reminders in batches, each credential once, and updates only the claiming issuer's rows", async () => {
    const issuerId = `claims-${dialect}`;
    const repo = createNotificationRepository(t.database.db);
    const claim = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, k) => {
        const i = from + k;
        return {
          credential_id: `claim-${dialect}-${i}`,
          recipient_hash: sha256Hex(`claim${i}@example.test`),
          status: 'queued',
          detail: null,
          unsubscribe_token_hash: sha256Hex(`claim-token-${dialect}-${i}`),
          created_at: '2026-11-26T00:00:00.000Z',
          updated_at: '2026-11-26T00:00:00.000Z',
        };
      });
    // 437 rows: two full statements of 200, then 32 + 4 + 1 on SQLite.
    expect((await repo.claimReminders(issuerId, t.database.dialect, claim(0, 437))).size).toBe(437);
    const again = await repo.claimReminders(issuerId, t.database.dialect, claim(0, 537));
    expect([...again].sort()).toEqual(
      claim(437, 537)
        .map((row) => row.credential_id)
        .sort(),
    );

    const first = `claim-${dialect}-0`;
    await repo.saveReminder(`other-${dialect}`, first, 'sent', null, '2026-11-26T00:01:00.000Z');
    await repo.saveReminder(issuerId, `claim-${dialect}-1`, 'sent', null, '2026-11-26T00:01:00.000Z');
    const stored = await t.database.db
      .selectFrom('credential_reminders')
      .select(['credential_id', 'issuer_id', 'status'])
      .where('credential_id', 'in', [first, `claim-${dialect}-1`])
      .orderBy('credential_id')
      .execute();
    expect(stored).toEqual([
      { credential_id: first, issuer_id: issuerId, status: 'queued' },
      { credential_id: `claim-${dialect}-1`, issuer_id: issuerId, status: 'sent' },
    ]);
  });
});
