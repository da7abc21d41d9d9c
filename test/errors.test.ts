import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestApp, dialects, expectErrorBody, type TestApp, type TestIssuer } from './helpers.js';

describe.each(dialects)('error bodies on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  beforeAll(async () => {
    t = await createTestApp(dialect);
    issuer = await t.issuer();
  });
  afterAll(async () => t.close());

  it('answers malformed JSON with 400 validation_failed and issues', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: { ...auth(issuer.key), 'content-type': 'application/json' },
      payload: '{"name": "x",',
    });
    const body = expectErrorBody(res, 400, 'validation_failed');
    expect(body.issues).toEqual([expect.objectContaining({ code: 'json' })]);
  });

  it('refuses a JSON body that is not UTF-8 instead of storing U+FFFD', async () => {
    const body = Buffer.concat([Buffer.from('{"name":"Caf'), Buffer.from([0xe9]), Buffer.from('","description":"y"}')]);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: { ...auth(issuer.key), 'content-type': 'application/json' },
      payload: body,
    });
    const refused = expectErrorBody(res, 400, 'validation_failed');
    expect(refused.message).toBe('The body is not valid UTF-8.');
    expect(refused.issues).toEqual([expect.objectContaining({ path: '', code: 'json' })]);
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/definitions', headers: auth(issuer.key) });
    expect(list.body).not.toContain('\ufffd');
    expect(list.body).not.toContain('�');
    // The same text written as UTF-8 is taken.
    const utf8 = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: { ...auth(issuer.key), 'content-type': 'application/json' },
      payload: Buffer.from('{"name":"Café","description":"y"}'),
    });
    expect(utf8.statusCode, utf8.body).toBe(201);
    expect(utf8.json().name).toBe('Café');
  });

  it('refuses a JSON body that names a key twice in one object, at any depth', async () => {
    for (const payload of [
      '{"name":"a","name":"b","description":"y"}',
      '{"name":"a","description":"y","tags":["t"],"nested":[{"k":1,"k":2}]}',
      '{"name" : "a", "description":"y", "name"\n:"b"}',
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/definitions',
        headers: { ...auth(issuer.key), 'content-type': 'application/json' },
        payload,
      });
      const refused = expectErrorBody(res, 400, 'validation_failed');
      expect(refused.message, payload).toBe('The body names a key twice in one object.');
    }
    // The same name in two objects, or as a value, or inside a string, is no duplicate.
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: { ...auth(issuer.key), 'content-type': 'application/json' },
      payload: '{"name":"name","description":"\\"name\\":1","tags":["name"]}',
    });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('names the allowed values when a value is not one of them', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/credentials?status=pending',
      headers: auth(issuer.key),
    });
    const body = expectErrorBody(res, 400, 'validation_failed');
    expect(body.issues).toEqual([
      { path: '/status', message: 'querystring/status must be one of: valid, expired, revoked', code: 'enum' },
    ]);
  });

  it('refuses prototype pollution payloads', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: { ...auth(issuer.key), 'content-type': 'application/json' },
      payload: '{"name":"x","description":"y","__proto__":{"admin":true}}',
    });
    expectErrorBody(res, 400, 'validation_failed');
  });

  it('answers an oversized body with 413 payload_too_large', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: { ...auth(issuer.key), 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x', description: 'y'.repeat(1_100_000) }),
    });
    expectErrorBody(res, 413, 'payload_too_large');
  });

  it('answers an unsupported content type with 415', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: { ...auth(issuer.key), 'content-type': 'application/xml' },
      payload: '<x/>',
    });
    expectErrorBody(res, 415, 'unsupported_media_type');
  });

  it('answers an unexpected failure with 500 internal_error and no internals', async () => {
    // A fault at the database seam: the table disappears behind the application's back.
    await sql`alter table definitions rename to definitions_gone`.execute(t.database.db);
    const failed = await t.app.inject({ method: 'GET', url: '/api/v1/definitions', headers: auth(issuer.key) });
    const body = expectErrorBody(failed, 500, 'internal_error');
    expect(body.message).toBe('An unexpected error occurred.');
    expect(failed.body).not.toMatch(/definitions|sqlite|relation|table/i);
    expect(failed.headers['x-request-id']).toBeDefined();
    await sql`alter table definitions_gone rename to definitions`.execute(t.database.db);
  });
});

describe('router-level errors on sqlite', () => {
  it('answers an over-long path parameter with a 404 Error body and a bad URL with 400', async () => {
    const t = await createTestApp('sqlite');
    try {
      const long = await t.app.inject({ method: 'GET', url: `/v1/issuers/${'a'.repeat(20_000)}` });
      expectErrorBody(long, 404, 'not_found');
      const key = (await t.issuer()).key;
      const listed = await t.app.inject({
        method: 'GET',
        url: `/api/v1/definitions/${'d'.repeat(150)}/alignments`,
        headers: { authorization: `Bearer ${key}` },
      });
      expect(listed.statusCode).toBe(200);
      expect(listed.json()).toEqual([]);
      const bad = await t.app.inject({ method: 'GET', url: '/v1/issuers/%E0%A4%A' });
      expect([400, 404]).toContain(bad.statusCode);
      expect(bad.json().error).toEqual(expect.any(String));
    } finally {
      await t.close();
    }
  });
});
