import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../src/core/errors.js';
import { type ConsoleUser, consoleUser } from './console.support.js';
import { auth, createTestApp, dialects, expectErrorBody, type TestApp, type TestIssuer } from './helpers.js';

/** Control characters a name could carry: CR/LF (a header or log line of its own), tab, BEL, DEL, NEL (C1). */
const CONTROLS = ['\r\n', '\n', '\r', '\t', '\u0007', '\u007f', '\u0085'];

/** Issue 37.8: every name field refuses control characters, as `senderName` does. */
describe.each(dialects)('name fields without control characters on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let definitionId: string;
  let credentialId: string;
  let pathwayId: string;
  let owner: ConsoleUser;

  /** With the API key, or with the owner's console session for the console's own routes (API keys). */
  const send = (method: 'POST' | 'PATCH', url: string, payload: object) =>
    t.app.inject({ method, url, headers: url === '/api/v1/keys' ? owner.headers : auth(a.key), payload });
  async function created(method: 'POST' | 'PATCH', url: string, payload: object) {
    const res = await send(method, url, payload);
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  }

  beforeAll(async () => {
    t = await createTestApp(dialect);
    a = await t.issuer();
    definitionId = (await created('POST', '/api/v1/definitions', { name: 'Engines', description: 'x' })).id;
    credentialId = (
      await created('POST', '/api/v1/credentials', {
        definitionId,
        recipientEmail: 'ada@example.test',
        completionKey: 'names-1',
      })
    ).credentialId;
    pathwayId = (await created('POST', '/api/v1/pathways', { name: 'Path', description: 'x' })).id;
    owner = await consoleUser(t.app, a.id, 'owner');
  });
  afterAll(async () => t.close());

  /** Each name-carrying body of the API, with `name` put in its name field. */
  const bodies = (name: string): [method: 'POST' | 'PATCH', url: string, payload: object][] => [
    ['POST', '/api/v1/definitions', { name, description: 'x' }],
    ['PATCH', `/api/v1/definitions/${definitionId}`, { name }],
    ['PATCH', '/api/v1/issuer/me', { name }],
    ['POST', '/api/v1/keys', { name }],
    ['POST', '/api/v1/pathways', { name, description: 'x' }],
    ['PATCH', `/api/v1/pathways/${pathwayId}`, { name }],
    ['POST', `/api/v1/definitions/${definitionId}/endorsements`, { endorserName: name, claim: 'Good.' }],
    ['POST', `/api/v1/credentials/${credentialId}/endorsements`, { endorserName: name, claim: 'Good.' }],
    [
      'POST',
      `/api/v1/definitions/${definitionId}/alignments`,
      { targetName: name, targetUrl: 'https://frameworks.example/a' },
    ],
    [
      'POST',
      '/api/v1/credentials',
      {
        definitionId,
        recipientEmail: 'grace@example.test',
        recipientName: name,
        completionKey: `names-${name.length}`,
      },
    ],
    [
      'POST',
      '/api/v1/ingest/completions',
      { definitionId, recipientEmail: 'grace@example.test', recipientName: name, completionKey: 'names-ingest' },
    ],
  ];

  it('refuses CR/LF and every other control character in each name field with a 400 naming the field', async () => {
    for (const control of CONTROLS) {
      for (const [method, url, payload] of bodies(`Acme${control}Bcc: x`)) {
        const res = await send(method, url, payload);
        const body = expectErrorBody(res, 400, 'validation_failed');
        expect(body.issues, `${method} ${url} ${JSON.stringify(control)}`).toEqual([
          expect.objectContaining({ code: 'pattern' }),
        ]);
      }
    }
    const definition = await t.app.inject({
      method: 'GET',
      url: `/api/v1/definitions/${definitionId}`,
      headers: auth(a.key),
    });
    expect(definition.json().name).toBe('Engines');
  });

  it('takes names in any script, with spaces, accents and punctuation', async () => {
    for (const [method, url, payload] of bodies('Zoë Åström-Núñez, 山田 (ACME)')) {
      const res = await send(method, url, payload);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    }
  });

  it('refuses a control character in an issuer name given to the CLI or the console (the issuer service)', async () => {
    const input = {
      slug: `names-cli-${dialect}`,
      email: 'ops@acme.example',
      url: 'https://acme.example',
    };
    await expect(t.app.services.issuers.createIssuer({ ...input, name: 'Acme\r\nBcc: x' })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    for (const name of ['Acme\r\nBcc: x', 'Acme\u0000']) {
      await expect(t.app.services.issuers.createIssuer({ ...input, name })).rejects.toBeInstanceOf(AppError);
    }
    const { issuer } = await t.app.services.issuers.createIssuer({ ...input, name: 'Acme Academy' });
    expect(issuer.name).toBe('Acme Academy');
  });
});
