import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';
import { createDefinition, postJson } from './ingest.support.js';

/** Issue 39 §3: staff see recipient names, search by name, and export credentials without emails. */

describe.each(dialects)('recipient names for staff, name search and the credentials export on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let course: { id: string; slug: string };
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  const ids: Record<string, string> = {};

  async function issue(email: string, name: string | null, key: string): Promise<string> {
    const res = await postJson(t, a.key, '/api/v1/credentials', {
      definitionId: course.id,
      recipientEmail: email,
      completionKey: key,
      ...(name === null ? {} : { recipientName: name }),
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().credentialId;
  }

  const search = async (body: Record<string, unknown>, key = a.key) => {
    const res = await postJson(t, key, '/api/v1/credentials/search', body);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { total: number; items: { id: string; recipientName: string | null }[] };
  };

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer();
    b = await t.issuer();
    course = await createDefinition(t, a.key, { name: 'Forklift Safety', slug: 'forklift' });
    ids.ada = await issue('ada@people.example', 'Ada Lovelace', 'p:ada');
    clock.advance(1000);
    ids.grace = await issue('grace@people.example', 'Grace Hopper', 'p:grace');
    clock.advance(1000);
    ids.formula = await issue('formula@people.example', '=HYPERLINK("http://evil.example","x")', 'p:formula');
    clock.advance(1000);
    ids.pct = await issue('pct@people.example', '100% Sure_Name', 'p:pct');
    clock.advance(1000);
    ids.anon = await issue('anon@people.example', null, 'p:anon');
  });
  afterAll(async () => t.close());

  it('shows the recipient name in the list and on the detail', async () => {
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/credentials?limit=10', headers: auth(a.key) });
    expect(list.statusCode, list.body).toBe(200);
    const names = Object.fromEntries(
      (list.json().items as { id: string; recipientName: string | null }[]).map((i) => [i.id, i.recipientName]),
    );
    expect(names[ids.ada as string]).toBe('Ada Lovelace');
    expect(names[ids.anon as string]).toBeNull();
    const detail = await t.app.inject({ method: 'GET', url: `/api/v1/credentials/${ids.grace}`, headers: auth(a.key) });
    expect(detail.json()).toMatchObject({ id: ids.grace, recipientName: 'Grace Hopper' });
    expect(list.body).not.toContain('@people.example');
  });

  it('searches by part of the name in any case, and by email as before', async () => {
    const byName = await search({ recipientName: 'lovel' });
    expect(byName.items.map((i) => [i.id, i.recipientName])).toEqual([[ids.ada, 'Ada Lovelace']]);
    expect((await search({ recipientName: 'HOPPER' })).items.map((i) => i.id)).toEqual([ids.grace]);
    // % and _ are letters to match, not wildcards.
    expect((await search({ recipientName: '100%' })).items.map((i) => i.id)).toEqual([ids.pct]);
    expect((await search({ recipientName: 'a_a' })).total).toBe(0);
    expect((await search({ recipientName: 'a%e' })).total).toBe(0);
    expect((await search({ recipientName: 'Sure_' })).items.map((i) => i.id)).toEqual([ids.pct]);
    expect((await search({ recipientEmail: 'GRACE@people.example' })).items.map((i) => i.id)).toEqual([ids.grace]);
    expect((await search({ recipientEmail: 'grace@people.example', recipientName: 'ada' })).total).toBe(0);
    // Another issuer's staff never find these names.
    expect((await search({ recipientName: 'Ada' }, b.key)).total).toBe(0);
    expectErrorBody(
      await postJson(t, a.key, '/api/v1/credentials/search', { recipientName: '' }),
      400,
      'validation_failed',
    );
  });

  it('exports one formula-safe line per credential: name, definition, status, issued, expires, verification URL, no email', async () => {
    const revoked = await postJson(t, a.key, `/api/v1/credentials/${ids.grace}/revoke`, { reason: 'left' });
    expect(revoked.statusCode, revoked.body).toBe(200);
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/credentials/export.csv', headers: auth(a.key) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="credentials-2026-11-21.csv"');
    expect(res.body).not.toContain('@');
    // Excel opens a CSV as UTF-8 only after a byte order mark (issue 46).
    expect(res.body.startsWith('\uFEFFname,definition,')).toBe(true);
    const [header, ...rows] = parse(res.body, { bom: true }) as string[][];
    expect(header).toEqual(['name', 'definition', 'status', 'issued', 'expires', 'verificationUrl']);
    expect(rows).toHaveLength(5);
    const byName = new Map(rows.map((row) => [row[0], row]));
    expect(byName.get('Ada Lovelace')).toEqual([
      'Ada Lovelace',
      'Forklift Safety',
      'valid',
      // As Excel reads a date and time (UTC); an ISO string with T and Z stays text there.
      '2026-11-21 10:00:00',
      '',
      expect.stringMatching(new RegExp(`/${ids.ada}$`)),
    ]);
    expect(byName.get('Grace Hopper')?.[2]).toBe('revoked');
    expect(byName.has('\'=HYPERLINK("http://evil.example","x")')).toBe(true);
    expect(byName.has('')).toBe(true);
    const page = await t.app.inject({ method: 'GET', url: new URL(byName.get('Ada Lovelace')?.[5] ?? '').pathname });
    expect(page.statusCode).toBe(200);

    const onlyRevoked = await t.app.inject({
      method: 'GET',
      url: '/api/v1/credentials/export.csv?status=revoked',
      headers: auth(a.key),
    });
    expect((parse(onlyRevoked.body, { bom: true }) as string[][]).slice(1).map((row) => row[0])).toEqual([
      'Grace Hopper',
    ]);
    const named = await t.app.inject({
      method: 'GET',
      url: '/api/v1/credentials/export.csv?recipientName=ada',
      headers: auth(a.key),
    });
    expect((parse(named.body, { bom: true }) as string[][]).slice(1).map((row) => row[0])).toEqual(['Ada Lovelace']);
    const other = await t.app.inject({ method: 'GET', url: '/api/v1/credentials/export.csv', headers: auth(b.key) });
    expect(parse(other.body, { bom: true })).toEqual([
      ['name', 'definition', 'status', 'issued', 'expires', 'verificationUrl'],
    ]);
    expectErrorBody(
      await t.app.inject({ method: 'GET', url: '/api/v1/credentials/export.csv?status=lost', headers: auth(a.key) }),
      400,
      'validation_failed',
    );
  });
});

/**
 * Issue 46: name search missed capitals outside ASCII on SQLite ("Ó Súill") and should ignore
 * accents ("sean", "zoe"). Both engines fold the same way (src/db/search-fold.ts): the page, the
 * search and the export, on SQLite through the reader's connection as well as the main one.
 */
describe.each(dialects)('name search ignores case and accents on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp(dialect);
    a = await t.issuer();
    const course = await createDefinition(t, a.key, { name: 'Welding', slug: 'welding' });
    for (const [key, name] of [
      ['orla', 'Órla Ó Súilleabháin'],
      ['sean', 'Seán Murphy'],
      ['zoe', 'Zoë Brontë'],
      ['plain', 'Sean Plain'],
      ['strasse', 'Jürgen Straße'],
    ] as const) {
      const res = await postJson(t, a.key, '/api/v1/credentials', {
        definitionId: course.id,
        recipientEmail: `${key}@fold.example`,
        completionKey: `fold:${key}`,
        recipientName: name,
      });
      expect(res.statusCode, res.body).toBe(201);
      ids[key] = res.json().credentialId;
    }
  });
  afterAll(async () => t.close());

  const found = async (recipientName: string) => {
    const res = await postJson(t, a.key, '/api/v1/credentials/search', { recipientName });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().items as { id: string }[]).map((i) => i.id).sort();
  };

  it.each([
    ['Ó Súill', ['orla']],
    ['ó súill', ['orla']],
    ['O SUILL', ['orla']],
    ['órla', ['orla']],
    ['ORLA', ['orla']],
    ['sean', ['plain', 'sean']],
    ['SEÁN', ['plain', 'sean']],
    ['zoe', ['zoe']],
    ['ZOË BRONTË', ['zoe']],
    ['jurgen', ['strasse']],
    ['straße', ['strasse']],
    ['nobody', []],
  ])('%j finds %j', async (query, keys) => {
    expect(await found(query)).toEqual(keys.map((k) => ids[k]).sort());
  });

  it('the export folds the same way', async () => {
    const csv = await t.app.inject({
      method: 'GET',
      url: `/api/v1/credentials/export.csv?recipientName=${encodeURIComponent('o suill')}`,
      headers: auth(a.key),
    });
    expect(csv.statusCode).toBe(200);
    expect(csv.body).toContain('Órla Ó Súilleabháin');
    expect(Buffer.from(csv.rawPayload).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(csv.body).not.toContain('Seán');
  });
});
