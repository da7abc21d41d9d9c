import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_FORM_NUL_NOTE } from '../src/core/openapi.js';
import { OPERATION_DESCRIPTIONS, OPERATION_TAGS } from '../src/core/operation-descriptions.js';
import { EMAIL_PATTERN, NAME_PATTERN } from '../src/core/schemas.js';
import { type ConsoleUser, consoleUser } from './console.support.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';

/**
 * The contract audit of 2026-12-01 (issue 48): each place where the document and the service
 * disagreed, with the document's statement and the service's answer side by side.
 */

type Schema = Record<string, unknown>;
type Operation = {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; schema: Schema }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, unknown>;
};
type Doc = { tags?: { name: string; description?: string }[]; paths: Record<string, Record<string, Operation>> };

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

function operations(doc: Doc): [string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]),
  );
}

/** Every schema node under `schema` (properties, items, alternatives), with its pointer. */
function schemaNodes(schema: unknown, at = ''): [string, Schema][] {
  if (schema === null || typeof schema !== 'object') return [];
  if (Array.isArray(schema)) return schema.flatMap((item, i) => schemaNodes(item, `${at}/${i}`));
  const node = schema as Schema;
  const children = Object.entries(node).flatMap(([key, value]) => {
    if (key === 'properties') {
      return Object.entries(value as Schema).flatMap(([name, child]) => schemaNodes(child, `${at}/${name}`));
    }
    return ['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties'].includes(key)
      ? schemaNodes(value, `${at}/${key}`)
      : [];
  });
  return [[at, node], ...children];
}

function requestSchemas(doc: Doc): [string, Schema][] {
  return operations(doc).flatMap(([name, op]) => [
    ...Object.entries(op.requestBody?.content ?? {}).flatMap(([media, { schema }]) =>
      schemaNodes(schema, `${name} ${media}`),
    ),
    ...(op.parameters ?? []).flatMap((p) => schemaNodes(p.schema, `${name} ${p.in}:${p.name}`)),
  ]);
}

describe.each(dialects)('the document and the service agree (issue 48) on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let owner: ConsoleUser;
  let doc: Doc;
  let definitionId: string;
  let serial = 0;

  const issue = (recipientEmail: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(issuer.key),
      payload: { definitionId, recipientEmail, completionKey: `contract-${++serial}` },
    });

  beforeAll(async () => {
    t = await createTestApp(dialect);
    issuer = await t.issuer();
    owner = await consoleUser(t.app, issuer.id, 'owner');
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(issuer.key),
      payload: { name: 'Contract audit', description: 'Issued by the contract tests' },
    });
    definitionId = definition.json().id;
  });
  afterAll(async () => t.close());

  it('gives every operation tags defined at the top level and a description of its own (Spectral)', () => {
    const defined = new Map((doc.tags ?? []).map((tag) => [tag.name, tag.description]));
    expect([...defined.keys()]).toEqual(OPERATION_TAGS.map((tag) => tag.name));
    for (const [name, description] of defined) expect(description, name).toMatch(/\w/);
    const used = new Set<string>();
    const problems: string[] = [];
    for (const [name, op] of operations(doc)) {
      if (!op.tags?.length) problems.push(`${name}: no tag`);
      for (const tag of op.tags ?? []) {
        used.add(tag);
        if (!defined.has(tag)) problems.push(`${name}: tag "${tag}" is not defined`);
      }
      if (!op.description?.trim()) problems.push(`${name}: no description`);
      else if (op.description === op.summary) problems.push(`${name}: the description only repeats the summary`);
    }
    expect(problems).toEqual([]);
    expect([...defined.keys()].filter((tag) => !used.has(tag))).toEqual([]);
    const operationIds = new Set(operations(doc).map(([, op]) => op.operationId));
    expect(Object.keys(OPERATION_DESCRIPTIONS).filter((id) => !operationIds.has(id))).toEqual([]);
  });

  it('states the email rule the service applies: no `format: email`, a local part of at most 64, padding trimmed', async () => {
    const emails = requestSchemas(doc).filter(([, node]) => node.pattern === EMAIL_PATTERN);
    expect(emails.length).toBeGreaterThanOrEqual(8);
    expect(requestSchemas(doc).filter(([, node]) => node.format === 'email')).toEqual([]);
    const pattern = new RegExp(EMAIL_PATTERN, 'u');
    const cases = [
      { email: `${'a'.repeat(64)}@example.org`, taken: true },
      { email: `${'a'.repeat(65)}@example.org`, taken: false },
      { email: '  padded@example.org\t', taken: true },
      { email: `ada@${'b'.repeat(64)}.example`, taken: false },
      { email: 'ada@localhost', taken: false },
    ];
    for (const { email, taken } of cases) {
      expect(pattern.test(email), email).toBe(taken);
      const res = await issue(email);
      expect(res.statusCode, `${email}: ${res.body}`).toBe(taken ? 201 : 400);
      if (!taken) expect(res.json().issues).toContainEqual(expect.objectContaining({ path: '/recipientEmail' }));
    }
    const invite = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: owner.headers,
      payload: { email: `${'c'.repeat(65)}@example.org`, role: 'viewer' },
    });
    expect(invite.statusCode).toBe(400);
  });

  it('lists no defaulted property as required, and takes the calls without them', async () => {
    const defaultedRequired = requestSchemas(doc).flatMap(([at, node]) => {
      const properties = (node.properties ?? {}) as Record<string, Schema>;
      return ((node.required ?? []) as string[])
        .filter((name) => properties[name]?.default !== undefined)
        .map((name) => `${at}/${name}`);
    });
    expect(defaultedRequired).toEqual([]);
    const search = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials/search',
      headers: auth(issuer.key),
      payload: {},
    });
    expect(search.statusCode, search.body).toBe(200);
    expect(search.json()).toMatchObject({ limit: 50, offset: 0 });
    const made = await t.app.inject({ method: 'POST', url: '/api/v1/keys', headers: owner.headers, payload: {} });
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/api/v1/keys/${made.json().id}/rotate`,
      headers: owner.headers,
      payload: {},
    });
    expect(rotated.statusCode, rotated.body).toBe(201);
    const next = rotated.json();
    // The default grace of a day: the old key's end is read a moment before the new key is made.
    const grace = Date.parse(next.previousKeyExpiresAt) - Date.parse(next.createdAt);
    expect(grace).toBeGreaterThan(86_400_000 - 60_000);
    expect(grace).toBeLessThanOrEqual(86_400_000);
  });

  it('takes an audit window with from equal to to, as analytics does, and says so', async () => {
    const audit = doc.paths['/api/v1/audit']?.get;
    const to = audit?.parameters?.find((p) => p.name === 'to') as { description?: string } | undefined;
    expect(to?.description).toContain('`from` equal to `to` is an empty window');
    const at = '2026-06-01T00:00:00.000Z';
    for (const url of [`/api/v1/audit?from=${at}&to=${at}`, `/api/v1/analytics?from=${at}&to=${at}`]) {
      const res = await t.app.inject({ method: 'GET', url, headers: auth(issuer.key) });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    }
    const empty = await t.app.inject({
      method: 'GET',
      url: `/api/v1/audit?from=${at}&to=${at}`,
      headers: auth(issuer.key),
    });
    expect(empty.json()).toMatchObject({ total: 0, items: [] });
    const later = '2026-06-02T00:00:00.000Z';
    for (const url of [`/api/v1/audit?from=${later}&to=${at}`, `/api/v1/analytics?from=${later}&to=${at}`]) {
      const res = await t.app.inject({ method: 'GET', url, headers: auth(issuer.key) });
      expect(res.statusCode, url).toBe(400);
    }
  });

  it('refuses U+0000 in every name field by its pattern, as the service does', async () => {
    const names = requestSchemas(doc).filter(([, node]) => node.pattern === NAME_PATTERN);
    expect(names.length).toBeGreaterThanOrEqual(12);
    expect(new RegExp(NAME_PATTERN, 'u').test('Acme\u0000')).toBe(false);
    expect(new RegExp(NAME_PATTERN, 'u').test('Zoë Ōsaka')).toBe(true);
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/issuer/me',
      headers: auth(issuer.key),
      payload: { name: 'Acme\u0000' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().issues).toContainEqual(expect.objectContaining({ path: '/name' }));
  });

  it('says a revocation reason may not hold an email address, refuses one, and takes a null body', async () => {
    const revoke = doc.paths['/api/v1/credentials/{id}/revoke']?.post?.requestBody;
    const schema = revoke?.content['application/json']?.schema as Schema;
    expect(schema.nullable).toBe(true);
    const reason = (schema.properties as Record<string, Schema>).reason;
    expect(reason?.description).toContain('email address is refused (400)');
    const id = (await issue('revoked@example.org')).json().credentialId as string;
    const refused = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${id}/revoke`,
      headers: auth(issuer.key),
      payload: { reason: 'asked by ada@example.org' },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().issues).toContainEqual(expect.objectContaining({ path: '/reason', code: 'personalData' }));
    const revoked = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${id}/revoke`,
      headers: { ...auth(issuer.key), 'content-type': 'application/json' },
      payload: 'null',
    });
    expect(revoked.statusCode, revoked.body).toBe(200);

    const offer = doc.paths['/api/v1/credentials/{id}/offers']?.post;
    expect(offer?.description).toContain('A revoked credential answers 400');
    expect(offer?.requestBody?.content['application/json']?.schema?.nullable).toBe(true);
    const refusedOffer = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${id}/offers`,
      headers: auth(issuer.key),
      payload: {},
    });
    expect(refusedOffer.statusCode).toBe(400);
    expect(refusedOffer.json().error).toBe('validation_failed');
  });

  it('states the bulk verification body limit in bytes, and answers 413 past it as documented', async () => {
    const bulk = doc.paths['/api/v1/verify/bulk']?.post;
    const schema = bulk?.requestBody?.content['application/json']?.schema as Schema;
    expect(schema.description).toContain('1,048,576 bytes');
    expect(bulk?.responses['413']).toBeDefined();
    const ids = Array.from({ length: 1000 }, () => '証'.repeat(400));
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/verify/bulk',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ ids }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toBe('payload_too_large');
  });

  it('says U+0000 is refused inside bodies the schema leaves open, and refuses it there', async () => {
    const presented = doc.paths['/api/v1/verify']?.post?.requestBody?.content['application/vc']?.schema as Schema;
    expect(presented.description).toContain(FREE_FORM_NUL_NOTE);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      headers: { 'content-type': 'application/vc' },
      payload: JSON.stringify({ '@context': ['https://www.w3.org/ns/credentials/v2'], name: 'a\u0000b' }),
    });
    expect(res.statusCode).toBe(400);
  });

  it('bounds the verification page segments and answers 404 for an id that names nothing', async () => {
    const page = doc.paths['/verify/{slug}/{id}']?.get;
    for (const parameter of page?.parameters ?? []) expect(parameter.schema.maxLength, parameter.name).toBe(8192);
    const res = await t.app.inject({ method: 'GET', url: `/verify/${issuer.slug}/${'x'.repeat(4000)}` });
    expect(res.statusCode).toBe(404);
  });
});
