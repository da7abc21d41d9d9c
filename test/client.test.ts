import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccoladeClient } from '../client/index.js';
import { generatedSchema, SCHEMA_FILE } from '../scripts/generate-client.js';
import { createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { freePort } from './verification.support.js';

describe('TypeScript client types', () => {
  it('client/schema.d.ts matches the document the service serves (run `npm run client:generate`)', async () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(await generatedSchema());
  });
});

describe.each(dialects)('TypeScript client on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp(dialect, { env: { PUBLIC_BASE_URL: base } });
    await t.app.listen({ port, host: '127.0.0.1' });
    issuer = await t.issuer({ name: 'Client Academy' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('calls the API with an API key, typed end to end', async () => {
    const client = createAccoladeClient({ baseUrl: `${base}/`, apiKey: issuer.key });
    const created = await client.POST('/api/v1/definitions', {
      body: { name: 'Typed Client Badge', description: 'Made through the generated client.' },
    });
    expect(created.response.status).toBe(201);
    const id = created.data?.id ?? '';
    const read = await client.GET('/api/v1/definitions/{id}', { params: { path: { id } } });
    expect(read.data?.name).toBe('Typed Client Badge');
    const me = await client.GET('/api/v1/issuer/me');
    expect(me.data?.slug).toBe(issuer.slug);
  });

  it('hands back the Error body on a refusal', async () => {
    const client = createAccoladeClient({ baseUrl: base, apiKey: 'not-a-key' });
    const { data, error, response } = await client.GET('/api/v1/issuer/me');
    expect(response.status).toBe(401);
    expect(data).toBeUndefined();
    expect(error).toMatchObject({ error: 'unauthorized' });
  });

  it('sends the CSRF token on state changes only, never on reads', async () => {
    const seen: { method: string; token: string | null }[] = [];
    const client = createAccoladeClient({
      baseUrl: base,
      credentials: 'same-origin',
      csrfToken: () => 'token-123',
      fetch: async (input) => {
        const request = input as Request;
        seen.push({ method: request.method, token: request.headers.get('x-csrf-token') });
        return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    await client.GET('/api/v1/definitions');
    await client.POST('/api/v1/definitions', { body: { name: 'x', description: 'y' } });
    await client.PATCH('/api/v1/definitions/{id}', { params: { path: { id: 'a' } }, body: { name: 'z' } });
    expect(seen).toEqual([
      { method: 'GET', token: null },
      { method: 'POST', token: 'token-123' },
      { method: 'PATCH', token: 'token-123' },
    ]);
  });
});
