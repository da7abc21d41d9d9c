import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../src/core/context.js';
import { type ConsoleUser, consoleUser } from './console.support.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';

/**
 * The role matrix, per route, over every operation the OpenAPI document lists with a security
 * requirement: a route added later is in the matrix without anyone adding it here.
 */

const RANK: Record<Role, number> = { viewer: 0, issuer: 1, owner: 2 };
const NOWHERE = '00000000-0000-4000-8000-000000000000';

/** What the roles are meant to be (docs/decisions.md "Console accounts"). */
function expectedRole(method: string, path: string): Role {
  if (/^\/api\/v1\/(users|keys|webhooks|gdpr|sso)(\/|$)/.test(path)) return 'owner';
  if (method === 'PATCH' && ['/api/v1/notifications/settings', '/api/v1/issuer/me'].includes(path)) return 'owner';
  // Installing, renaming or removing an LMS is the owner's, as the "an owner opens Connectors" says.
  if (method !== 'GET' && /^\/api\/v1\/lti\//.test(path)) return 'owner';
  if (method === 'POST' && ['/api/v1/credentials/search', '/api/v1/pathways/{id}/progress'].includes(path)) {
    return 'viewer';
  }
  if (path === '/api/v1/session') return 'viewer';
  return method === 'GET' ? 'viewer' : 'issuer';
}

/** Routes for the console alone: an API key is refused there. */
const sessionOnly = (path: string) => /^\/api\/v1\/(users|keys|session|sso)(\/|$)/.test(path);

interface Operation {
  method: string;
  path: string;
  url: string;
}

describe.each(dialects)('console role matrix on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let operations: Operation[];
  const users = {} as Record<Role, ConsoleUser>;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    issuer = await t.issuer();
    for (const role of ['viewer', 'issuer', 'owner'] as const) users[role] = await consoleUser(t.app, issuer.id, role);
    // Another owner, so that owner-only changes to users never meet the last-owner rule.
    await consoleUser(t.app, issuer.id, 'owner');
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    operations = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { security?: unknown[] }>>)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op.security || op.security.length === 0) continue;
        // The Open Badges API is the earner's, under OAuth 2.0 tokens: staff roles do not apply there.
        if (op.security.every((scheme) => Object.keys(scheme as object).every((name) => name === 'OAuth2ACG')))
          continue;
        operations.push({ method: method.toUpperCase(), path, url: path.replace(/\{[^}]+\}/g, NOWHERE) });
      }
    }
    // Signing out ends the session the other requests use: last.
    operations.sort(
      (a, b) =>
        Number(a.method === 'DELETE' && a.path === '/api/v1/session') -
        Number(b.method === 'DELETE' && b.path === '/api/v1/session'),
    );
  });
  afterAll(async () => {
    await t.close();
  });

  it('covers every secured /api/v1 operation', () => {
    expect(operations.length).toBeGreaterThan(40);
    expect(operations.every((o) => o.path.startsWith('/api/v1/'))).toBe(true);
  });

  it('gives each role exactly what it may, and an API key every route except the console-only ones', async () => {
    const mismatches: string[] = [];
    for (const op of operations) {
      const needed = expectedRole(op.method, op.path);
      for (const role of ['viewer', 'issuer', 'owner'] as const) {
        const res = await t.app.inject({
          method: op.method as 'GET',
          url: op.url,
          headers: { ...users[role].headers, 'content-type': 'application/json' },
          ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { payload: '{}' }),
        });
        const refused = res.statusCode === 403 && res.json().error === 'forbidden';
        const allowed = RANK[role] >= RANK[needed];
        if (refused === allowed)
          mismatches.push(`${role} ${op.method} ${op.path}: ${res.statusCode} ${res.body.slice(0, 120)}`);
        expect(res.statusCode, `${role} ${op.method} ${op.path}`).toBeLessThan(500);
      }
      if (op.method === 'DELETE' && op.path === '/api/v1/session') continue;
      const keyed = await t.app.inject({
        method: op.method as 'GET',
        url: op.url,
        headers: { ...auth(issuer.key), 'content-type': 'application/json' },
        ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { payload: '{}' }),
      });
      const keyRefused = keyed.statusCode === 403 && keyed.json().error === 'forbidden';
      if (keyRefused !== sessionOnly(op.path)) mismatches.push(`key ${op.method} ${op.path}: ${keyed.statusCode}`);
    }
    expect(mismatches).toEqual([]);
  });
});
