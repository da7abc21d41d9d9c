import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectFetch, validateHosted } from './documents.support.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  expectHiddenFromOtherIssuer,
  expectKeyRequired,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';

const BASE = 'https://badges.test';
const MISSING = '00000000-0000-4000-8000-000000000000';

describe.each(dialects)('alignments on %s', (dialect) => {
  const clock = manualClock('2026-05-10T08:30:00.000Z');
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let definition: { id: string; slug: string };
  const path = (id: string) => `/api/v1/definitions/${id}/alignments`;
  const align = (key: string, id: string, payload: unknown) =>
    t.app.inject({ method: 'POST', url: path(id), headers: auth(key), payload: payload as object });

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ slug: `align-a-${dialect}` });
    b = await t.issuer({ slug: `align-b-${dialect}` });
    definition = (
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/definitions',
        headers: auth(a.key),
        payload: { name: 'First Aid', description: 'Provide first aid' },
      })
    ).json();
  });
  afterAll(async () => t.close());

  it('creates an alignment (201) with every field, and audits it', async () => {
    const res = await align(a.key, definition.id, {
      targetName: 'Provide First Aid',
      targetUrl: 'https://training.gov.au/Training/Details/HLTAID011',
      targetFramework: 'Australian VET',
      targetType: 'ext:AQFUnitOfCompetency',
      targetCode: 'HLTAID011',
      targetDescription: 'Unit of competency',
    });
    expect(res.statusCode, res.body).toBe(201);
    const alignment = res.json();
    expect(alignment).toEqual({
      id: expect.any(String),
      issuerId: a.id,
      definitionId: definition.id,
      targetName: 'Provide First Aid',
      targetUrl: 'https://training.gov.au/Training/Details/HLTAID011',
      targetFramework: 'Australian VET',
      targetCode: 'HLTAID011',
      targetDescription: 'Unit of competency',
      targetType: 'ext:AQFUnitOfCompetency',
      createdAt: '2026-05-10T08:30:00.000Z',
    });
    const audit = await t.app.inject({ method: 'GET', url: '/api/v1/audit', headers: auth(a.key) });
    expect(audit.json().items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: 'alignment.created',
          targetType: 'alignment',
          targetId: alignment.id,
          details: { definitionId: definition.id },
        }),
      ]),
    );
  });

  it('lists in creation order; optional fields are null; [] for an unknown or foreign definition', async () => {
    for (const targetName of ['Second', 'Third']) {
      const res = await align(a.key, definition.id, { targetName, targetUrl: `https://skills.example/${targetName}` });
      expect(res.json()).toMatchObject({ targetFramework: null, targetCode: null, targetDescription: null });
    }
    const list = await t.app.inject({ method: 'GET', url: path(definition.id), headers: auth(a.key) });
    expect(list.statusCode).toBe(200);
    const items = list.json() as { targetName: string; createdAt: string }[];
    expect(items.map((i) => i.targetName)).toEqual(['Provide First Aid', 'Second', 'Third']);
    expect(new Set(items.map((i) => i.createdAt)).size).toBe(3);
    for (const [key, id] of [
      [a.key, MISSING],
      [b.key, definition.id],
    ] as const) {
      const empty = await t.app.inject({ method: 'GET', url: path(id), headers: auth(key) });
      expect(empty.statusCode).toBe(200);
      expect(empty.json()).toEqual([]);
    }
  });

  it('is reflected in the BadgeClass as AlignmentObjects, valid for the validator', async () => {
    const url = `${BASE}/v1/issuers/${a.slug}/badges/${definition.slug}`;
    const badge = (await t.app.inject({ method: 'GET', url: url.slice(BASE.length) })).json();
    expect(badge.alignment).toEqual([
      {
        targetName: 'Provide First Aid',
        targetUrl: 'https://training.gov.au/Training/Details/HLTAID011',
        targetDescription: 'Unit of competency',
        targetFramework: 'Australian VET',
        targetCode: 'HLTAID011',
        // OB 2.0 has no targetType: it rides in the badge-data extension (documents/extension.ts).
        'extensions:AlignmentTargetType': {
          '@context': `${BASE}/v1/extensions/achievement-metadata/context.json`,
          type: ['Extension', 'extensions:AlignmentTargetType'],
          targetType: 'ext:AQFUnitOfCompetency',
        },
      },
      { targetName: 'Second', targetUrl: 'https://skills.example/Second' },
      { targetName: 'Third', targetUrl: 'https://skills.example/Third' },
    ]);
    const report = await validateHosted(url, { fetch: injectFetch(t.app, BASE), now: clock.now() });
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
  });

  it('validates the body: targetName and an http(s) targetUrl are required, nothing else is accepted', async () => {
    const missing = expectErrorBody(await align(a.key, definition.id, {}), 400, 'validation_failed') as {
      issues: { path: string }[];
    };
    expect(missing.issues.map((i) => i.path).sort()).toEqual(['/targetName', '/targetUrl']);
    const bad = expectErrorBody(
      await align(a.key, definition.id, { targetName: 'x', targetUrl: 'urn:isbn:123', definitionId: MISSING }),
      400,
      'validation_failed',
    ) as { issues: { path: string }[] };
    expect(bad.issues.map((i) => i.path).sort()).toEqual(['/definitionId', '/targetUrl']);
  });

  it('needs a key and hides another issuer’s definition (404)', async () => {
    const payload = { targetName: 'x', targetUrl: 'https://x.example' };
    await expectKeyRequired(t.app, { method: 'POST', url: path(definition.id), payload });
    await expectKeyRequired(t.app, { method: 'GET', url: path(definition.id) });
    await expectHiddenFromOtherIssuer(
      t.app,
      b.key,
      { method: 'POST', url: path(definition.id), payload },
      { method: 'POST', url: path(MISSING), payload },
    );
    expectErrorBody(await align(a.key, MISSING, payload), 404, 'not_found');
  });
});
