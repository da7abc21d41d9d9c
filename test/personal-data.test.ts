import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containsEmail } from '../src/core/personal-data.js';
import { namesWithoutEmailsMigration } from '../src/db/migrations/0015_names_without_emails.js';
import { NAME_DROPPED_MESSAGE } from '../src/modules/credentials/issuance.service.js';
import { partialName } from '../src/modules/verification/partial-name.js';
import { canvasCourseCompleted } from './connectors.fixtures.js';
import { auth, createTestApp, dialects, expectErrorBody, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, importCsv, postJson, storedText } from './ingest.support.js';

/** Addresses that must never be stored, in any field, in any case. */
const NAME_EMAIL = 'jane.doe@corp.example';
const KEY_EMAIL = 'kim.lee@school.example';
/**
 * Issue 37.6: addresses with invisible characters inside (a zero-width space, a soft hyphen, a
 * combining mark after the "@" or ending a local part), and an address literal for a domain.
 */
const HIDDEN_EMAILS = [
  'ada\u200b@example.org',
  'ada@\u200bexample.org',
  'ada\u00ad@example.org',
  'ada@\u0301example.org',
  'ada@[127.0.0.1]',
  'ada\u2060@\ufeffexample.org',
  'सीता@example.in',
  'kim.lee%4\u200b0school.example',
];

describe('personal data rules', () => {
  it('finds an email address anywhere in a text, also with a fullwidth or URL-encoded "@"', () => {
    for (const text of [
      NAME_EMAIL,
      `ds101:${KEY_EMAIL}`,
      'Jane (jane@localhost)',
      'kim.lee%40school.example',
      'kim.lee＠school.example',
      'Ada@ACME',
      ...HIDDEN_EMAILS,
    ]) {
      expect(containsEmail(text), text).toBe(true);
    }
    for (const text of [
      'Ada Lovelace',
      'ds101:8f3a2c',
      'Ada @ ACME',
      'Ada @\u200b ACME',
      '@handle',
      'trailing@',
      'moodle:site:42:7',
      'Jose\u0301 Nu\u0301n\u0303ez',
      'सीता राम',
      'Zoë\u00adÅström',
    ]) {
      expect(containsEmail(text), text).toBe(false);
    }
  });

  it('never shows more than a first name and a last initial, in any script', () => {
    expect(partialName('Grace Brewster Hopper')).toBe('Grace H.');
    expect(partialName('  Ada   lovelace ')).toBe('Ada L.');
    expect(partialName('Plato')).toBe('P.');
    expect(partialName('山田太郎')).toBe('山.');
    expect(partialName('山田 太郎')).toBe('山田 太.');
    expect(partialName('สมชาย')).toBe('ส.');
    // One grapheme cluster, not one code point: N + combining tilde.
    expect(partialName('Jose\u0301 N\u0303u\u0301n\u0303ez')).toBe('Jose\u0301 N\u0303.');
    // An ASCII letter that a non-ASCII mark extends (keycap: digit, variation selector, enclosing keycap).
    expect(partialName('Ada 1\uFE0F\u20E3b')).toBe('Ada 1\uFE0F\u20E3.');
    expect(partialName('   ')).toBeUndefined();
    expect(partialName(null)).toBeUndefined();
  });

  it('takes the same initial as the grapheme segmenter for every two printable ASCII characters', () => {
    const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    for (let a = 0x21; a < 0x7f; a++) {
      for (let b = 0x21; b < 0x7f; b++) {
        const word = String.fromCharCode(a, b);
        const [first] = Array.from(segmenter.segment(word), (s) => s.segment);
        expect(partialName(`Ada ${word}`)).toBe(`Ada ${first?.toLocaleUpperCase()}.`);
      }
    }
  });
});

describe.each(dialects)('names and keys carrying email addresses on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let course: { id: string; slug: string };
  const bodies: string[] = [];

  async function post(url: string, payload: unknown) {
    const res = await postJson(t, a.key, url, payload);
    bodies.push(res.body);
    return res;
  }

  async function displayName(id: string) {
    const row = await t.database.db
      .selectFrom('credentials')
      .select('display_name')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return row.display_name;
  }

  beforeAll(async () => {
    t = await createTestApp(dialect);
    a = await t.issuer();
    course = await createDefinition(t, a.key, { name: 'Data Science 101', slug: 'ds101' });
    await createDefinition(t, a.key, { name: 'Computer Science I', slug: 'cs-101' });
  });
  afterAll(async () => t?.close());

  describe('a name holding an email address', () => {
    it('is not stored through the API; the credential is issued and the answer says the name was dropped', async () => {
      const res = await post('/api/v1/credentials', {
        definitionId: course.id,
        recipientEmail: 'jane@corp.example',
        recipientName: NAME_EMAIL,
        completionKey: 'ds101:enrol-1',
      });
      expect(res.statusCode, res.body).toBe(201);
      const issued = res.json();
      expect(issued).toMatchObject({ created: true, recipientNameDropped: true });
      expect(await displayName(issued.credentialId)).toBeNull();

      const verified = await post('/api/v1/verify', { id: issued.assertionUrl });
      expect(verified.json()).toMatchObject({ authentic: true, status: 'valid' });
      expect(verified.json()).not.toHaveProperty('recipientName');
      const page = await t.app.inject({ method: 'GET', url: new URL(issued.verifyUrl).pathname });
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('jane.doe');

      const replay = await post('/api/v1/credentials', {
        definitionId: course.id,
        recipientEmail: 'jane@corp.example',
        recipientName: `Jane ${NAME_EMAIL}`,
        completionKey: 'ds101:enrol-1',
      });
      expect(replay.json()).toMatchObject({ created: false, recipientNameDropped: true });
    });

    it('keeps a plain name and says nothing about dropping it', async () => {
      const res = await post('/api/v1/credentials', {
        definitionId: course.id,
        recipientEmail: 'ada@corp.example',
        recipientName: ' Ada Lovelace ',
        completionKey: 'ds101:enrol-2',
      });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).not.toHaveProperty('recipientNameDropped');
      expect(await displayName(res.json().credentialId)).toBe('Ada Lovelace');
    });

    it('is not stored through ingest, a CSV row or a Canvas user.name, and each says so', async () => {
      const ingested = await post('/api/v1/ingest/completions', {
        recipientEmail: 'jane2@corp.example',
        recipientName: NAME_EMAIL.toUpperCase(),
        definitionRef: 'ds101',
      });
      expect(ingested.statusCode, ingested.body).toBe(201);
      expect(ingested.json()).toMatchObject({ outcome: 'issued', recipientNameDropped: true });
      expect(await displayName(ingested.json().credentialId)).toBeNull();

      const csv = [
        'email,name,course,key',
        `jane3@corp.example,${NAME_EMAIL},ds101,csv-1`,
        'grace@corp.example,Grace Hopper,ds101,csv-2',
      ].join('\n');
      for (const dryRun of [true, false]) {
        const report = await importCsv(t, a.key, csv, { dryRun });
        bodies.push(JSON.stringify(report));
        expect(report.rows.map((row) => row.message)).toEqual([NAME_DROPPED_MESSAGE, null]);
        if (!dryRun) {
          expect(report.rows.map((row) => row.outcome)).toEqual(['issued', 'issued']);
          expect(await displayName(report.rows[0]?.credentialId as string)).toBeNull();
          expect(await displayName(report.rows[1]?.credentialId as string)).toBe('Grace Hopper');
        }
      }

      const event = structuredClone(canvasCourseCompleted);
      event.body.user.name = NAME_EMAIL;
      const run = await post('/api/v1/connectors/canvas/completions', {
        ...event,
        definitionMap: { '2017.100.101.101-1': 'cs-101' },
      });
      expect(run.statusCode, run.body).toBe(200);
      expect(run.json().records[0]).toMatchObject({ outcome: 'issued', message: NAME_DROPPED_MESSAGE });
      expect(await displayName(run.json().records[0].credentialId)).toBeNull();
    });
  });

  describe('a completion key or a revocation reason holding an email address', () => {
    const key = `ds101:${KEY_EMAIL}`;

    function expectRefused(res: { statusCode: number; body: string; json(): unknown }, field: string) {
      const body = expectErrorBody(res as never, 400, 'validation_failed');
      expect(body.message).toContain(field);
      expect(body.issues).toEqual([expect.objectContaining({ path: `/${field}` })]);
      expect(res.body).not.toContain('kim.lee');
    }

    it('is refused by issue, ingest, reissue and revoke with a 400 naming the field', async () => {
      expectRefused(
        await post('/api/v1/credentials', { definitionId: course.id, recipientEmail: KEY_EMAIL, completionKey: key }),
        'completionKey',
      );
      expectRefused(
        await post('/api/v1/credentials', {
          definitionId: course.id,
          recipientEmail: KEY_EMAIL,
          completionKey: 'ds101:kim.lee%40school.example',
        }),
        'completionKey',
      );
      expectRefused(
        await post('/api/v1/ingest/completions', {
          recipientEmail: KEY_EMAIL,
          definitionId: course.id,
          completionKey: key,
        }),
        'completionKey',
      );
      const issued = await post('/api/v1/credentials', {
        definitionId: course.id,
        recipientEmail: KEY_EMAIL,
        completionKey: 'ds101:enrol-3',
      });
      const id = issued.json().credentialId;
      expectRefused(await post(`/api/v1/credentials/${id}/reissue`, { completionKey: key }), 'completionKey');
      expectRefused(
        await post(`/api/v1/credentials/${id}/revoke`, { reason: `Asked by ${KEY_EMAIL} by mail` }),
        'reason',
      );
      const detail = await t.app.inject({ method: 'GET', url: `/api/v1/credentials/${id}`, headers: auth(a.key) });
      expect(detail.json()).toMatchObject({ status: 'valid', completionKey: 'ds101:enrol-3' });
    });

    it('is a row or record error naming the field, never echoing the key', async () => {
      const csv = ['email,course,key', `${KEY_EMAIL},ds101,${key}`, 'ok@school.example,ds101,csv-3'].join('\n');
      const report = await importCsv(t, a.key, csv);
      bodies.push(JSON.stringify(report));
      expect(report.rows[0]).toMatchObject({ outcome: 'error', completionKey: null, credentialId: null });
      expect(report.rows[0]?.message).toContain('completionKey may not contain an email address');
      expect(report.rows[1]).toMatchObject({ outcome: 'issued', completionKey: 'csv-3' });

      const run = await post('/api/v1/connectors/generic/completions', {
        records: [{ email: KEY_EMAIL, definitionRef: 'ds101', externalId: `lms:${KEY_EMAIL}` }],
      });
      expect(run.statusCode, run.body).toBe(200);
      expect(run.json().records[0]).toMatchObject({ outcome: 'error', completionKey: null });
      expect(run.json().records[0].message).toContain('completionKey may not contain an email address');
    });
  });

  it('finds an address behind invisible characters or with an address literal, in names and completion keys', async () => {
    for (const [i, hidden] of HIDDEN_EMAILS.entries()) {
      const named = await post('/api/v1/credentials', {
        definitionId: course.id,
        recipientEmail: `hidden${i}@corp.example`,
        recipientName: `Ada ${hidden}`,
        completionKey: `ds101:hidden-${i}`,
      });
      expect(named.statusCode, named.body).toBe(201);
      expect(named.json(), hidden).toMatchObject({ created: true, recipientNameDropped: true });
      expect(await displayName(named.json().credentialId)).toBeNull();

      const keyed = await post('/api/v1/credentials', {
        definitionId: course.id,
        recipientEmail: `hidden${i}@corp.example`,
        completionKey: `ds101:${hidden}`,
      });
      const body = expectErrorBody(keyed, 400, 'validation_failed');
      expect(body.issues, hidden).toEqual([expect.objectContaining({ path: '/completionKey', code: 'personalData' })]);
    }
  });

  it('keeps the addresses out of every answer and everything stored', async () => {
    const stored = await storedText(t);
    for (const email of [NAME_EMAIL, KEY_EMAIL, 'kim.lee%40school.example']) {
      expect(stored).not.toContain(email);
      for (const body of bodies) expect(body.toLowerCase()).not.toContain(email);
    }
  });

  it('an erasure replaces a stored completion key holding an email address', async () => {
    const issued = await post('/api/v1/credentials', {
      definitionId: course.id,
      recipientEmail: 'legacy@school.example',
      completionKey: 'ds101:enrol-legacy',
    });
    const id = issued.json().credentialId;
    // As a release before this one stored it.
    await t.database.db
      .updateTable('credentials')
      .set({ completion_key: 'ds101:legacy@school.example' })
      .where('id', '=', id)
      .execute();
    const erased = await post('/api/v1/gdpr/erase', { recipientEmail: 'legacy@school.example' });
    expect(erased.json()).toMatchObject({ found: true, revoked: 1, credentialIds: [id] });
    const detail = await t.app.inject({ method: 'GET', url: `/api/v1/credentials/${id}`, headers: auth(a.key) });
    expect(detail.json()).toMatchObject({ status: 'revoked', completionKey: `erased:${id}` });
  });

  it('migration 0015 forgets stored names holding an email address and keeps the others', async () => {
    const db = t.database.db;
    const rows = await db
      .selectFrom('credentials')
      .select(['id', 'display_name'])
      .where('issuer_id', '=', a.id)
      .execute();
    const [first, second, third] = rows;
    if (!first || !second || !third) throw new Error('expected three credentials');
    // As a release before this one stored them.
    const legacy: [string, string][] = [
      [first.id, `Jane Doe <${NAME_EMAIL}>`],
      [second.id, 'jane.doe＠corp.example'],
      [third.id, 'Grace Hopper'],
    ];
    for (const [id, name] of legacy) {
      await db.updateTable('credentials').set({ display_name: name }).where('id', '=', id).execute();
    }
    await namesWithoutEmailsMigration().up(db as unknown as Kysely<unknown>);
    for (const [id, name] of legacy) {
      expect(await displayName(id)).toBe(name === 'Grace Hopper' ? name : null);
    }
  });
});
