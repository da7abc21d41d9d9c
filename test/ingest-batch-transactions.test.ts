import { afterAll, describe, expect, it } from 'vitest';
import { hashRecipientEmail } from '../src/core/hashing.js';
import { createTestApp, dialects, type TestApp } from './helpers.js';
import { countRows, createDefinition, importCsv } from './ingest.support.js';

const QUOTA = 1_200;
const ROWS = 2_500;
const EARLIER = 100;

/*
 * A transaction of batch issuance takes several chunks before it commits. These imports are large
 * enough that the quota runs out in a later chunk of a transaction, which is then rolled back as a
 * whole and re-run with only the room that is left.
 */
describe.each(dialects)('batch issuance transactions on %s', (dialect) => {
  let t: TestApp;
  afterAll(async () => t.close());

  it('stops exactly at the quota within a multi-chunk transaction, with one audit record and webhook per credential', {
    timeout: 120_000,
  }, async () => {
    t = await createTestApp(dialect);
    await t.app.services.issuers.updatePlan('starter', { issuanceQuota: QUOTA, requestsPerMinute: 10_000 });
    const issuer = await t.issuer({ plan: 'starter' });
    await createDefinition(t, issuer.key, { name: 'Batch Course', slug: 'batch' });
    await t.app.services.webhooks.subscriptions.create(issuer.id, 'cli', {
      url: 'https://hooks.batch.example/in',
      events: ['credential.issued'],
    });
    const csvOf = (rows: number) =>
      `email,name,course,completion_key\n${Array.from(
        { length: rows },
        (_, i) => `l${i}@batch.example,Learner ${i},batch,k-${i}`,
      ).join('\n')}\n`;

    const earlier = await importCsv(t, issuer.key, csvOf(EARLIER));
    expect(earlier.issued).toBe(EARLIER);

    const csv = csvOf(ROWS);
    const dry = await importCsv(t, issuer.key, csv, { dryRun: true });
    const real = await importCsv(t, issuer.key, csv);
    const fit = QUOTA - EARLIER;
    const expected = [ROWS, fit, EARLIER, ROWS - EARLIER - fit];
    expect([real.total, real.issued, real.skipped, real.errored]).toEqual(expected);
    expect([dry.total, dry.issued, dry.skipped, dry.errored]).toEqual(expected);
    expect(real.rows.slice(0, EARLIER).every((r) => r.outcome === 'skipped' && r.credentialId !== null)).toBe(true);
    expect(real.rows.slice(EARLIER, QUOTA).every((r) => r.outcome === 'issued' && r.credentialId !== null)).toBe(true);
    expect(real.rows.slice(QUOTA).every((r) => r.outcome === 'error' && r.message === 'quota_exceeded')).toBe(true);

    expect(await countRows(t, 'credentials')).toBe(QUOTA);
    // One record per credential, after the issuer's own two (issuer.created, api_key.created), the
    // definition.created record of the definition and the webhook.added record of the subscription.
    expect(await countRows(t, 'audit_log')).toBe(QUOTA + 4);
    const deliveries = await t.database.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('event', '=', 'credential.issued')
      .executeTakeFirstOrThrow();
    expect(Number(deliveries.n)).toBe(QUOTA);
    const usage = await t.app.services.usage.remainingIssuance(issuer.id);
    expect(usage).toMatchObject({ used: QUOTA, remaining: 0 });
    const [chain] = await t.app.services.audit.verify(issuer.id);
    expect(chain).toMatchObject({ records: QUOTA + 4, ok: true });
    const batches = await t.database.db
      .selectFrom('import_batches')
      .select(['total', 'issued', 'skipped', 'errored'])
      .orderBy('created_at')
      .execute();
    expect(batches.map((b) => [b.total, b.issued, b.skipped, b.errored])).toEqual([[EARLIER, EARLIER, 0, 0], expected]);
  });

  it('inserts an import in recipient-hash order and still reports each row with its own credential', {
    timeout: 120_000,
  }, async () => {
    const issuer = await t.issuer();
    await createDefinition(t, issuer.key, { name: 'Ordered Course', slug: 'ordered' });
    const emails = Array.from({ length: 1_500 }, (_, i) => `Ordered.${i}@Batch.example`);
    const csv = `email,course\n${emails.map((email) => `${email},ordered`).join('\n')}\n`;
    const report = await importCsv(t, issuer.key, csv);
    expect(report.issued).toBe(emails.length);

    const { recipient_salt: salt } = await t.database.db
      .selectFrom('issuers')
      .select('recipient_salt')
      .where('id', '=', issuer.id)
      .executeTakeFirstOrThrow();
    const stored = await t.database.db
      .selectFrom('credentials')
      .select(['id', 'recipient_hash'])
      .where('issuer_id', '=', issuer.id)
      .execute();
    const hashOf = new Map(stored.map((row) => [row.id, row.recipient_hash]));
    report.rows.forEach((row, i) => {
      expect(hashOf.get(row.credentialId as string)).toBe(hashRecipientEmail(emails[i] as string, salt));
    });
    // Ids are time-ordered version 7 UUIDs.
    expect(
      stored.every((row) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(row.id)),
    ).toBe(true);
  });
});
