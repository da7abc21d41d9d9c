import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const MISSING = '00000000-0000-4000-8000-000000000000';
const LEARNER = 'Path.Finder@Example.TEST';

interface Stage {
  stageId: string;
  definitionId: string;
  stepOrder: number;
  required: boolean;
  earned: boolean;
}

describe.each(dialects)('pathways on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  async function post(key: string, url: string, payload: unknown) {
    return t.app.inject({ method: 'POST', url, headers: auth(key), payload: payload as object });
  }

  async function definition(key: string, name: string, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await post(key, '/api/v1/definitions', { name, description: `${name} course`, ...extra });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  }

  async function pathway(key: string, name: string, slug?: string): Promise<string> {
    const res = await post(key, '/api/v1/pathways', { name, description: `${name} track`, ...(slug ? { slug } : {}) });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  }

  async function issue(definitionId: string, completionKey: string, recipientEmail = LEARNER): Promise<string> {
    const res = await post(a.key, '/api/v1/credentials', { definitionId, recipientEmail, completionKey });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().credentialId;
  }

  async function progress(pathwayId: string, recipientEmail = LEARNER) {
    const res = await post(a.key, `/api/v1/pathways/${pathwayId}/progress`, { recipientEmail });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as {
      pathwayId: string;
      name: string;
      complete: boolean;
      earnedStages: number;
      totalStages: number;
      requiredStages: number;
      stages: Stage[];
    };
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ slug: `path-a-${dialect}` });
    b = await t.issuer({ slug: `path-b-${dialect}` });
  });
  afterAll(async () => t.close());

  describe('create and list', () => {
    it('creates a pathway with a slug derived from the name, suffixed only when deriving', async () => {
      const res = await post(a.key, '/api/v1/pathways', {
        name: 'Data Engineer',
        description: 'From zero to pipelines',
      });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        issuerId: a.id,
        slug: 'data-engineer',
        name: 'Data Engineer',
        description: 'From zero to pipelines',
        status: 'active',
        createdAt: '2026-11-21T10:00:00.000Z',
        updatedAt: '2026-11-21T10:00:00.000Z',
      });
      const again = await post(a.key, '/api/v1/pathways', { name: 'Data Engineer', description: 'Second' });
      expect(again.json().slug).toBe('data-engineer-2');
      const explicit = await post(a.key, '/api/v1/pathways', { name: 'X', description: 'y', slug: 'data-engineer' });
      expectErrorBody(explicit, 409, 'slug_taken');
      const otherIssuer = await post(b.key, '/api/v1/pathways', {
        name: 'Elsewhere',
        description: 'Slugs are per issuer',
        slug: 'data-engineer',
      });
      expect(otherIssuer.statusCode).toBe(201);
    });

    it('validates the body: required fields, slug shape and unknown properties', async () => {
      const res = await post(a.key, '/api/v1/pathways', { name: '', slug: 'Not A Slug', issuerId: b.id });
      const body = expectErrorBody(res, 400, 'validation_failed') as { issues: { path: string }[] };
      expect(body.issues.map((i) => i.path)).toEqual(
        expect.arrayContaining(['/name', '/description', '/slug', '/issuerId']),
      );
    });

    it("lists only the key holder's pathways", async () => {
      const list = await t.app.inject({ method: 'GET', url: '/api/v1/pathways', headers: auth(a.key) });
      expect(list.statusCode).toBe(200);
      const slugs = list.json().map((p: { slug: string }) => p.slug);
      expect(slugs).toEqual(expect.arrayContaining(['data-engineer', 'data-engineer-2']));
      expect(list.json().every((p: { issuerId: string }) => p.issuerId === a.id)).toBe(true);
      await expectKeyRequired(t.app, { method: 'GET', url: '/api/v1/pathways' });
      await expectKeyRequired(t.app, {
        method: 'POST',
        url: '/api/v1/pathways',
        payload: { name: 'n', description: 'd' },
      });
    });

    it('audits creation without personal data', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/audit?limit=200', headers: auth(a.key) });
      const created = res.json().items.filter((i: { action: string }) => i.action === 'pathway.created');
      expect(created.length).toBeGreaterThanOrEqual(2);
      expect(created[0]).toMatchObject({ targetType: 'pathway', details: { slug: expect.any(String) } });
    });
  });

  describe('stages', () => {
    let pathwayId: string;
    let first: string;
    let second: string;

    beforeAll(async () => {
      pathwayId = await pathway(a.key, 'Stage Track');
      first = await definition(a.key, 'Stage One');
      second = await definition(a.key, 'Stage Two');
    });

    it('adds stages (required by default) and returns them ordered by stepOrder', async () => {
      const later = await post(a.key, `/api/v1/pathways/${pathwayId}/stages`, { definitionId: second, stepOrder: 2 });
      expect(later.statusCode, later.body).toBe(201);
      expect(later.json()).toEqual({
        id: expect.any(String),
        pathwayId,
        definitionId: second,
        stepOrder: 2,
        required: true,
      });
      const earlier = await post(a.key, `/api/v1/pathways/${pathwayId}/stages`, {
        definitionId: first,
        stepOrder: 1,
        required: false,
      });
      expect(earlier.json()).toMatchObject({ definitionId: first, stepOrder: 1, required: false });
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/pathways/${pathwayId}`, headers: auth(a.key) });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ id: pathwayId, slug: 'stage-track', status: 'active', issuerId: a.id });
      expect(body.stages.map((s: { definitionId: string }) => s.definitionId)).toEqual([first, second]);
      expect(body.stages[0]).toEqual(earlier.json());
    });

    it('refuses the same definition twice with 409 stage_exists', async () => {
      const res = await post(a.key, `/api/v1/pathways/${pathwayId}/stages`, { definitionId: first, stepOrder: 3 });
      expectErrorBody(res, 409, 'stage_exists');
    });

    it("answers 404 for another issuer's definition exactly as for an unknown one", async () => {
      const foreignDefinition = await definition(b.key, 'Not Yours');
      const foreign = await post(a.key, `/api/v1/pathways/${pathwayId}/stages`, {
        definitionId: foreignDefinition,
        stepOrder: 1,
      });
      const unknown = await post(a.key, `/api/v1/pathways/${pathwayId}/stages`, {
        definitionId: MISSING,
        stepOrder: 1,
      });
      expectErrorBody(foreign, 404, 'not_found');
      expect(foreign.body).toBe(unknown.body);
    });

    it('validates stepOrder and required', async () => {
      const res = await post(a.key, `/api/v1/pathways/${pathwayId}/stages`, {
        definitionId: first,
        stepOrder: 0,
        required: 'yes',
      });
      const body = expectErrorBody(res, 400, 'validation_failed') as { issues: { path: string }[] };
      expect(body.issues.map((i) => i.path).sort()).toEqual(['/required', '/stepOrder']);
      const fractional = await post(a.key, `/api/v1/pathways/${pathwayId}/stages`, {
        definitionId: first,
        stepOrder: 1.5,
      });
      expectErrorBody(fractional, 400, 'validation_failed');
    });

    it("hides another issuer's pathway on get, patch and stages, and requires a key", async () => {
      await expectHiddenFromOtherIssuer(
        t.app,
        b.key,
        { method: 'GET', url: `/api/v1/pathways/${pathwayId}` },
        { method: 'GET', url: `/api/v1/pathways/${MISSING}` },
      );
      await expectHiddenFromOtherIssuer(
        t.app,
        b.key,
        { method: 'PATCH', url: `/api/v1/pathways/${pathwayId}`, payload: { status: 'archived' } },
        { method: 'PATCH', url: `/api/v1/pathways/${MISSING}`, payload: { status: 'archived' } },
      );
      const bDefinition = await definition(b.key, 'B Stage');
      await expectHiddenFromOtherIssuer(
        t.app,
        b.key,
        {
          method: 'POST',
          url: `/api/v1/pathways/${pathwayId}/stages`,
          payload: { definitionId: bDefinition, stepOrder: 1 },
        },
        {
          method: 'POST',
          url: `/api/v1/pathways/${MISSING}/stages`,
          payload: { definitionId: bDefinition, stepOrder: 1 },
        },
      );
      await expectKeyRequired(t.app, { method: 'GET', url: `/api/v1/pathways/${pathwayId}` });
      await expectKeyRequired(t.app, {
        method: 'POST',
        url: `/api/v1/pathways/${pathwayId}/stages`,
        payload: { definitionId: first, stepOrder: 1 },
      });
      const unchanged = await t.app.inject({
        method: 'GET',
        url: `/api/v1/pathways/${pathwayId}`,
        headers: auth(a.key),
      });
      expect(unchanged.json()).toMatchObject({ status: 'active' });
      expect(unchanged.json().stages).toHaveLength(2);
    });

    it('audits stage additions', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/audit?limit=200', headers: auth(a.key) });
      const added = res.json().items.filter((i: { action: string }) => i.action === 'pathway.stage_added');
      expect(added).toHaveLength(2);
      expect(added.map((i: { details: { definitionId: string } }) => i.details.definitionId).sort()).toEqual(
        [first, second].sort(),
      );
    });
  });

  describe('update', () => {
    it('renames, redescribes and archives; the slug is permanent', async () => {
      const id = await pathway(a.key, 'Renamable');
      clock.advance(60_000);
      const res = await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/pathways/${id}`,
        headers: auth(a.key),
        payload: { name: 'Renamed', description: 'New words', status: 'archived' },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        id,
        slug: 'renamable',
        name: 'Renamed',
        description: 'New words',
        status: 'archived',
        updatedAt: '2026-11-21T10:01:00.000Z',
      });
      const back = await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/pathways/${id}`,
        headers: auth(a.key),
        payload: { status: 'active' },
      });
      expect(back.json()).toMatchObject({ status: 'active', name: 'Renamed' });
      const got = await t.app.inject({ method: 'GET', url: `/api/v1/pathways/${id}`, headers: auth(a.key) });
      expect(got.json()).toMatchObject({ name: 'Renamed', status: 'active', stages: [] });
      clock.set('2026-11-21T10:00:00.000Z');
    });

    it('validates the patch body', async () => {
      const id = await pathway(a.key, 'Patch Rules');
      for (const payload of [{}, { status: 'deleted' }, { slug: 'new-slug' }, { name: '' }]) {
        const res = await t.app.inject({
          method: 'PATCH',
          url: `/api/v1/pathways/${id}`,
          headers: auth(a.key),
          payload,
        });
        expectErrorBody(res, 400, 'validation_failed');
      }
      await expectKeyRequired(t.app, { method: 'PATCH', url: `/api/v1/pathways/${id}`, payload: { name: 'x' } });
    });
  });

  describe('progress', () => {
    let pathwayId: string;
    let intro: string;
    let advanced: string;
    let elective: string;

    beforeAll(async () => {
      pathwayId = await pathway(a.key, 'Progress Track');
      intro = await definition(a.key, 'Intro');
      advanced = await definition(a.key, 'Advanced', { expiresAfterDays: 10 });
      elective = await definition(a.key, 'Elective');
      await post(a.key, `/api/v1/pathways/${pathwayId}/stages`, { definitionId: intro, stepOrder: 1 });
      await post(a.key, `/api/v1/pathways/${pathwayId}/stages`, { definitionId: advanced, stepOrder: 2 });
      await post(a.key, `/api/v1/pathways/${pathwayId}/stages`, {
        definitionId: elective,
        stepOrder: 3,
        required: false,
      });
    });

    it('starts with nothing earned', async () => {
      const body = await progress(pathwayId);
      expect(body).toEqual({
        pathwayId,
        name: 'Progress Track',
        complete: false,
        earnedStages: 0,
        totalStages: 3,
        requiredStages: 2,
        stages: [
          { stageId: expect.any(String), definitionId: intro, stepOrder: 1, required: true, earned: false },
          { stageId: expect.any(String), definitionId: advanced, stepOrder: 2, required: true, earned: false },
          { stageId: expect.any(String), definitionId: elective, stepOrder: 3, required: false, earned: false },
        ],
      });
    });

    it('completes when every required stage is earned, optional stages aside', async () => {
      await issue(intro, 'p-intro');
      const partway = await progress(pathwayId);
      expect(partway).toMatchObject({ complete: false, earnedStages: 1 });
      await issue(advanced, 'p-advanced');
      const done = await progress(pathwayId, 'path.finder@example.test');
      expect(done).toMatchObject({ complete: true, earnedStages: 2, requiredStages: 2, totalStages: 3 });
      expect(done.stages.map((s) => s.earned)).toEqual([true, true, false]);
      const someoneElse = await progress(pathwayId, 'other.learner@example.test');
      expect(someoneElse).toMatchObject({ complete: false, earnedStages: 0 });
    });

    it('stops counting a stage whose credential expires, until a valid one is held again', async () => {
      clock.set('2026-12-01T10:00:00.000Z');
      const expired = await progress(pathwayId);
      expect(expired).toMatchObject({ complete: false, earnedStages: 1 });
      expect(expired.stages[1]).toMatchObject({ definitionId: advanced, earned: false });
      await issue(advanced, 'p-advanced-renewed');
      expect(await progress(pathwayId)).toMatchObject({ complete: true, earnedStages: 2 });
    });

    it('stops counting a stage whose credential is revoked', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/credentials?definitionId=${intro}`,
        headers: auth(a.key),
      });
      const [introCredential] = res.json().items;
      const revoke = await post(a.key, `/api/v1/credentials/${introCredential.id}/revoke`, { reason: 'error' });
      expect(revoke.statusCode).toBe(200);
      const after = await progress(pathwayId);
      expect(after).toMatchObject({ complete: false, earnedStages: 1 });
      expect(after.stages[0]).toMatchObject({ definitionId: intro, earned: false });
      clock.set('2026-11-21T10:00:00.000Z');
    });

    it('is never complete without stages', async () => {
      const empty = await pathway(a.key, 'Empty Track');
      expect(await progress(empty)).toEqual({
        pathwayId: empty,
        name: 'Empty Track',
        complete: false,
        earnedStages: 0,
        totalStages: 0,
        requiredStages: 0,
        stages: [],
      });
    });

    it('validates the email, hides other issuers, requires a key and never echoes the email', async () => {
      const bad = await post(a.key, `/api/v1/pathways/${pathwayId}/progress`, { recipientEmail: 'not-an-email' });
      expectErrorBody(bad, 400, 'validation_failed');
      expect(bad.body).not.toContain('not-an-email');
      const missing = await post(a.key, `/api/v1/pathways/${pathwayId}/progress`, {});
      expectErrorBody(missing, 400, 'validation_failed');
      await expectHiddenFromOtherIssuer(
        t.app,
        b.key,
        { method: 'POST', url: `/api/v1/pathways/${pathwayId}/progress`, payload: { recipientEmail: LEARNER } },
        { method: 'POST', url: `/api/v1/pathways/${MISSING}/progress`, payload: { recipientEmail: LEARNER } },
      );
      await expectKeyRequired(t.app, {
        method: 'POST',
        url: `/api/v1/pathways/${pathwayId}/progress`,
        payload: { recipientEmail: LEARNER },
      });
      const ok = await post(a.key, `/api/v1/pathways/${pathwayId}/progress`, { recipientEmail: LEARNER });
      expect(ok.body.toLowerCase()).not.toContain('path.finder');
    });
  });
});
