import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import vm from 'node:vm';
import type { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logOptions, MAX_URL_LENGTH } from '../src/app.js';
import { MAX_HEADER_BYTES } from '../src/core/error-handler.js';
import { REDACTED, redactUrl, scrubLogLine } from '../src/core/log-redaction.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  redisClient,
  type TestApp,
  type TestIssuer,
} from './helpers.js';

const KEY_SHAPED = `acc_${'Ab3_-'.repeat(8)}`;

/** A documentation address of its own for each use: Redis counts outlive one test run. */
const randomAddress = () => `2001:db8::${randomUUID().slice(0, 4)}:${randomUUID().slice(0, 4)}`;

/**
 * Whether `work` finishes inside a watchdog of `ms` (vm's timeout interrupts a running regular
 * expression too). The inputs below are 1 MiB: linear work takes milliseconds, the old quadratic
 * expression tens of minutes, so the bound is not a timing threshold but a finish line only the
 * linear redaction can reach.
 */
function finishesWithin(ms: number, work: () => unknown): boolean {
  try {
    vm.runInNewContext('work()', { work }, { timeout: ms });
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return false;
    throw err;
  }
}

/** The expression the service used before: `x@y` between separators, tried from every start position. */
const OLD_EMAIL_IN_URL = /[^/?&=#\s]+(?:@|%40)[^/?&=#\s]+/gi;

const MIB = 1024 * 1024;
const PATHOLOGICAL_URLS = [
  `/verify/${'a'.repeat(MIB)}`,
  `/api/v1/verify?q=${'a'.repeat(MIB)}`,
  `/x/${'a%4'.repeat(MIB / 3)}`,
  `/x?${'acc_'.repeat(MIB / 4)}`,
  `/x?${'a'.repeat(MIB)}@`,
];

describe('log redaction of request URLs', () => {
  it('hides emails, API keys, tokens and secret parameters, and keeps ids, slugs and plain parameters', () => {
    const id = randomUUID();
    const cases: [string, string][] = [
      ['/verify/acme/jane@corp.example', `/verify/acme/${REDACTED}`],
      [
        '/api/v1/credentials?recipientEmail=jane%40corp.example&limit=5',
        `/api/v1/credentials?recipientEmail=${REDACTED}&limit=5`,
      ],
      [`/api/v1/credentials?api_key=${KEY_SHAPED}`, `/api/v1/credentials?api_key=${REDACTED}`],
      [`/api/v1/credentials?k=${KEY_SHAPED}`, `/api/v1/credentials?k=${REDACTED}`],
      [`/x/${KEY_SHAPED}/y`, `/x/${REDACTED}/y`],
      [
        '/x?token=short&key=1&secret=s&password=hunter2&access_token=t',
        `/x?token=${REDACTED}&key=${REDACTED}&secret=${REDACTED}&password=${REDACTED}&access_token=${REDACTED}`,
      ],
      [
        '/x?sig=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
        `/x?sig=${REDACTED}`,
      ],
      ['/x?q=Bearer%20aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z', `/x?q=${REDACTED}`],
      [
        `/v1/issuers/acme-university-data-science-2026/assertions/${id}?v=2_0`,
        `/v1/issuers/acme-university-data-science-2026/assertions/${id}?v=2_0`,
      ],
      ['/api/v1/credentials?limit=50&offset=0&status=valid', '/api/v1/credentials?limit=50&offset=0&status=valid'],
      ['/health', '/health'],
    ];
    for (const [url, logged] of cases) expect(redactUrl(url), url).toBe(logged);
  });

  it('redacts by parameter name, whatever the value looks like: code, state, tx_code, challenge, nonce, token (issue 48 §7)', () => {
    const cases: [string, string][] = [
      [
        '/sso/callback?code=abcdef&state=xyz&iss=https%3A%2F%2Fidp',
        `/sso/callback?code=${REDACTED}&state=${REDACTED}&iss=https%3A%2F%2Fidp`,
      ],
      ['/oid4vci/token?tx_code=123456', `/oid4vci/token?tx_code=${REDACTED}`],
      ['/x?pre-authorized_code=short', `/x?pre-authorized_code=${REDACTED}`],
      [
        '/x?challenge=c1&nonce=n1&code_challenge=cc&token=t',
        `/x?challenge=${REDACTED}&nonce=${REDACTED}&code_challenge=${REDACTED}&token=${REDACTED}`,
      ],
      ['/x?status=valid&limit=5', '/x?status=valid&limit=5'],
    ];
    for (const [url, out] of cases) expect(redactUrl(url), url).toBe(out);
  });

  it('takes time linear in the URL: 1 MiB pathological URLs finish where the old expression cannot', () => {
    for (const url of PATHOLOGICAL_URLS) {
      let out = '';
      expect(
        finishesWithin(3_000, () => {
          out = redactUrl(url);
        }),
      ).toBe(true);
      expect(out.length).toBeGreaterThan(0);
    }
    // The same finish line refuses the old expression: the check can fail.
    expect(finishesWithin(3_000, () => (PATHOLOGICAL_URLS[1] as string).replace(OLD_EMAIL_IN_URL, REDACTED))).toBe(
      false,
    );
  }, 30_000);
});

describe('log lines scrubbed as they are written', () => {
  /** A line as pino writes it, through the service's logger options, with the scrub applied. */
  function logged(write: (log: pino.Logger) => void): string {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const log = pino(logOptions('info'), stream);
    write(log);
    return lines.join('');
  }

  it('hides values named like a secret in bodies and messages: form pairs and JSON members, escaped or not (issue 48 §7)', () => {
    const line = logged((log) =>
      log.warn(
        {
          body: 'grant_type=urn%3Aietf&pre-authorized_code=lowercasecode&tx_code=4711',
          tx_code: '0815',
          nested: { code: 'abc', state: 'st8', challenge: 'ch4', nonce: 'n0nce', limit: 50 },
          raw: JSON.stringify({ code: 'inner1', token: 'inner2', name: 'kept' }),
          url: '/cb?x=1?code=qqq',
        },
        'token request with code=mmm and state=sss failed',
      ),
    );
    for (const secret of [
      'lowercasecode',
      '4711',
      '0815',
      'abc',
      'st8',
      'ch4',
      'n0nce',
      'inner1',
      'inner2',
      'qqq',
      'mmm',
      'sss',
    ]) {
      expect(line, secret).not.toContain(secret);
    }
    expect(() => JSON.parse(line)).not.toThrow();
    expect(JSON.parse(line)).toMatchObject({
      nested: { limit: 50 },
      body: expect.stringContaining('grant_type=urn%3Aietf'),
    });
    expect(line).toContain('kept');
  });

  it('hides an email address and an API key in any field, message or error, at any depth', () => {
    const line = logged((log) =>
      log.child({ reqId: 'r1' }).warn(
        {
          email: 'jane@corp.example',
          deep: { deeper: { deepest: { note: "write to o'brien+tag@mail.corp.example today" } } },
          list: ['<Ann.Lee@uni.example>', 'plain'],
          err: new Error(`no such recipient: bob@example.org, key ${KEY_SHAPED}`),
        },
        'sent to ada@example.org (müller@example.de)',
      ),
    );
    for (const secret of [
      'jane',
      'corp.example',
      'brien',
      'Ann.Lee',
      'uni.example',
      'bob@',
      'ada@',
      'müller',
      KEY_SHAPED,
    ]) {
      expect(line).not.toContain(secret);
    }
    const parsed = JSON.parse(line);
    expect(parsed.email).toBe(REDACTED);
    expect(parsed.deep.deeper.deepest.note).toBe(`write to ${REDACTED} today`);
    expect(parsed.list).toEqual([`<${REDACTED}>`, 'plain']);
    expect(parsed.msg).toBe(`sent to ${REDACTED} (${REDACTED})`);
    expect(parsed.err.message).toBe(`no such recipient: ${REDACTED}, key ${REDACTED}`);
  });

  it('leaves JSON escapes whole: an address right after a newline, a control character or a backslash', () => {
    const note = 'first line\nann@uni.example, then\u0001bob@uni.example, and C:\\temp\\cy@uni.example';
    const line = logged((log) => log.info({ note }, 'escapes'));
    expect(line).not.toContain('uni.example');
    expect(JSON.parse(line).note).toBe(`first line\n${REDACTED}, then\u0001${REDACTED}, and C:\\temp\\${REDACTED}`);
  });

  it('hides a quoted local part, an address literal and a percent-encoded @', () => {
    const addresses = [
      '"john.doe"@uni.example',
      'user@[192.168.0.1]',
      'user@[IPv6:2001:db8::1]',
      'alice%40uni.example',
    ];
    const line = logged((log) => log.info({ addresses }, 'odd addresses'));
    for (const secret of ['john.doe', '192.168.0.1', '2001:db8', 'alice', 'uni.example'])
      expect(line).not.toContain(secret);
    expect(JSON.parse(line).addresses).toEqual([REDACTED, REDACTED, REDACTED, REDACTED]);
  });

  it('reads a JSON escape as one token when looking for keys: no key is found inside one, a key after one is', () => {
    const lookalike = `\x1acc_${'A'.repeat(40)}`;
    const afterEscape = `\x1a${KEY_SHAPED}`;
    const line = logged((log) =>
      log.error({ lookalike, afterEscape, err: new Error(`\udacc_${'A'.repeat(40)}`) }, 'k'),
    );
    const parsed = JSON.parse(line);
    expect(parsed.lookalike).toBe(lookalike);
    expect(parsed.afterEscape).toBe(`\x1a${REDACTED}`);
    expect(parsed.err.message).toBe(`\udacc_${'A'.repeat(40)}`);
    expect(line).not.toContain(KEY_SHAPED);
  });

  it('keeps a line without an address as it was, and a lone @ or a JSON quote next to one', () => {
    const line = logged((log) => log.info({ handle: '@', at: 'a @ b', id: 'x-1' }, 'no "address" here'));
    expect(JSON.parse(line)).toMatchObject({ handle: '@', at: 'a @ b', id: 'x-1', msg: 'no "address" here' });
  });

  it('takes time linear in the line: a 1 MiB line of @s and address characters finishes', () => {
    for (const text of [
      'a@'.repeat(MIB / 2),
      `${'a'.repeat(MIB)}@`,
      `@${'b'.repeat(MIB)}`,
      `${'\\'.repeat(MIB)}a@b`,
      '"a"@['.repeat(MIB / 5),
      'a%40'.repeat(MIB / 4),
      'acc_'.repeat(MIB / 4),
    ]) {
      let out = '';
      expect(
        finishesWithin(3_000, () => {
          out = scrubLogLine(text);
        }),
      ).toBe(true);
      expect(out).not.toMatch(/\w@\w/);
    }
  }, 30_000);
});

describe.each(dialects)('the front door on %s', (dialect) => {
  const logLines: string[] = [];
  let t: TestApp;
  let issuer: TestIssuer;

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    t = await createTestApp(dialect, {
      env: { OPEN_RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: '10.0.0.0/8' },
      logger: { ...logOptions('info'), stream },
    });
    issuer = await t.issuer();
  });
  afterAll(async () => t.close());

  it('answers a URL over 8 KiB with 414 before the key is looked up, and does not log it', async () => {
    const authenticate = vi.spyOn(t.app.services.issuers, 'authenticate');
    try {
      const long = `/api/v1/credentials?q=${'a'.repeat(MAX_URL_LENGTH)}`;
      const res = await t.app.inject({
        method: 'GET',
        url: long,
        headers: auth(issuer.key),
        remoteAddress: '198.51.100.1',
      });
      expectErrorBody(res, 414, 'uri_too_long');
      expect(res.headers['x-request-id']).toBeDefined();
      expect(authenticate).not.toHaveBeenCalled();
      expect(logLines.join('\n')).not.toContain('a'.repeat(1000));
      const atLimit = `/health?q=${'a'.repeat(MAX_URL_LENGTH - '/health?q='.length)}`;
      expect((await t.app.inject({ method: 'GET', url: atLimit })).statusCode).toBe(200);
    } finally {
      authenticate.mockRestore();
    }
  });

  it('answers a request line or headers over 16 KiB with 431 and the Error body, on a listening server', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const raw = (head: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let answer = '';
        socket.on('data', (chunk) => {
          answer += chunk.toString();
        });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(answer));
        socket.on('connect', () => socket.write(head));
        socket.setTimeout(10_000, () => reject(new Error('no answer')));
      });
    const big = 'b'.repeat(MAX_HEADER_BYTES + 1024);
    for (const head of [
      `GET /api/v1/credentials?q=${big} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
      `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${big}\r\n\r\n`,
    ]) {
      const answer = await raw(head);
      const [status, ...lines] = answer.split('\r\n');
      expect(status).toBe('HTTP/1.1 431 Request Header Fields Too Large');
      const headers = lines.slice(0, lines.indexOf('')).map((line) => line.toLowerCase());
      expect(headers).toContain('content-type: application/json; charset=utf-8');
      expect(headers).toContain('x-content-type-options: nosniff');
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
        error: 'headers_too_large',
        message: 'The request line and headers together are larger than 16 KiB.',
      });
    }
    expect(logLines.join('\n')).not.toContain('b'.repeat(1000));
    const ok = await fetch(`http://127.0.0.1:${port}/health`);
    expect(ok.status).toBe(200);
  });

  it('never logs a key or a token given in the query string or the path', async () => {
    const urls = [
      `/api/v1/credentials?api_key=${issuer.key}`,
      `/api/v1/credentials?token=${issuer.key.slice(4)}`,
      `/api/v1/verify/${issuer.key}`,
    ];
    for (const url of urls) await t.app.inject({ method: 'GET', url, remoteAddress: '198.51.100.2' });
    const logs = logLines.join('\n');
    expect(logs).toContain(`"url":"/api/v1/credentials?api_key=${REDACTED}"`);
    expect(logs).toContain(`"url":"/api/v1/credentials?token=${REDACTED}"`);
    expect(logs).not.toContain(issuer.key.slice(4, 30));
  });

  it('logs one line per request once it is answered, with the request, the status and the time taken', async () => {
    const url = `/api/v1/no-such-route-${randomUUID()}`;
    const res = await t.app.inject({ method: 'GET', url, remoteAddress: randomAddress() });
    expect(res.statusCode).toBe(404);
    const lines = logLines.filter((line) => line.includes(url)).map((line) => JSON.parse(line));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'request completed',
      reqId: res.headers['x-request-id'],
      req: { method: 'GET', url },
      res: { statusCode: 404 },
    });
    expect(lines[0].responseTime).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain('incoming request');
  });

  it('counts the address the trusted proxy saw, whatever the client wrote left of it', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/verify',
        payload: { id: 'no-such-credential' },
        remoteAddress: '10.1.2.3',
        headers: { 'x-forwarded-for': `192.0.2.${i}, 203.0.113.7` },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    // Another client behind the same proxy has its own count; a client reaching the service
    // directly is its socket's address, whatever it forwards.
    const other = await t.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      payload: { id: 'no-such-credential' },
      remoteAddress: '10.1.2.3',
      headers: { 'x-forwarded-for': '203.0.113.8' },
    });
    expect(other.statusCode).toBe(200);
    const direct = await t.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      payload: { id: 'no-such-credential' },
      remoteAddress: '198.51.100.50',
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    expect(direct.statusCode).toBe(200);
  });

  it('refuses an address over its limit before looking up any key it sends', async () => {
    const address = '198.51.100.77';
    const authenticate = vi.spyOn(t.app.services.issuers, 'authenticate');
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await t.app.inject({
          method: 'GET',
          url: '/api/v1/issuer/me',
          headers: auth(`acc_${String(i).repeat(40)}`),
          remoteAddress: address,
        });
        statuses.push(res.statusCode);
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
      const lookups = authenticate.mock.calls.length;
      expect(lookups).toBe(4);
      for (const headers of [
        auth(`acc_${'z'.repeat(40)}`),
        { 'x-api-key': `acc_${'q'.repeat(40)}` },
        auth(issuer.key),
      ]) {
        const res = await t.app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers, remoteAddress: address });
        expectErrorBody(res, 429, 'rate_limited');
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        expect(res.headers['x-ratelimit-remaining']).toBe('0');
      }
      expect(authenticate.mock.calls.length).toBe(lookups);
      const elsewhere = await t.app.inject({
        method: 'GET',
        url: '/api/v1/issuer/me',
        headers: auth(issuer.key),
        remoteAddress: '198.51.100.78',
      });
      expect(elsewhere.statusCode).toBe(200);
    } finally {
      authenticate.mockRestore();
    }
  });

  it('shows a browser that is over the limit a page saying when to retry', async () => {
    const address = '198.51.100.90';
    const page = `/verify/${issuer.slug}/${randomUUID()}`;
    const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({ method: 'GET', url: page, headers: browser, remoteAddress: address });
      expect(res.statusCode).toBe(404);
    }
    const limited = await t.app.inject({ method: 'GET', url: page, headers: browser, remoteAddress: address });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['content-type']).toMatch(/^text\/html/);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(limited.headers['x-ratelimit-limit']).toBe('3');
    expect(limited.body).toContain('Too many requests');
    expect(limited.body).toContain(`retry in ${retryAfter} second`);
    const api = await t.app.inject({
      method: 'GET',
      url: page,
      headers: { accept: 'application/json' },
      remoteAddress: address,
    });
    expectErrorBody(api, 429, 'rate_limited');
  });

  it('answers a method the path does not support with 405 and Allow', async () => {
    for (const [method, url, allow] of [
      ['POST', '/health', 'GET, HEAD'],
      ['TRACE', '/health', 'GET, HEAD'],
      ['DELETE', '/api/v1/verify', 'POST'],
      ['PUT', '/openapi.json', 'GET, HEAD'],
    ] as const) {
      const res = await t.app.inject({ method, url, remoteAddress: '198.51.100.100' });
      expectErrorBody(res, 405, 'method_not_allowed');
      expect(res.headers.allow, `${method} ${url}`).toBe(allow);
    }
    const query = await t.app.inject({
      method: 'QUERY' as 'GET',
      url: '/health',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
      remoteAddress: '198.51.100.100',
    });
    expectErrorBody(query, 405, 'method_not_allowed');
    expect(query.headers.allow).toBe('GET, HEAD');
    // A method the service does not know, sent without a Content-Type: 405 all the same, not 400.
    for (const url of ['/health', '/api/v1/credentials', '/no/such/path']) {
      const bare = await t.app.inject({ method: 'QUERY' as 'GET', url, remoteAddress: randomAddress() });
      expectErrorBody(
        bare,
        url === '/no/such/path' ? 404 : 405,
        url === '/no/such/path' ? 'not_found' : 'method_not_allowed',
      );
    }
    // A concrete path has its own methods only, never those of the templated path beside it.
    for (const [method, url, allow] of [
      ['POST', '/api/v1/webhooks/catalog', 'GET, HEAD'],
      ['DELETE', '/api/v1/webhooks/catalog', 'GET, HEAD'],
      ['PATCH', '/api/v1/webhooks/catalog', 'GET, HEAD'],
      ['GET', '/api/v1/credentials/search', 'POST'],
      ['DELETE', '/api/v1/credentials/search', 'POST'],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: auth(issuer.key), remoteAddress: randomAddress() });
      expectErrorBody(res, 405, 'method_not_allowed');
      expect(res.headers.allow, `${method} ${url}`).toBe(allow);
    }
    const templated = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/webhooks/0f8fad5b-d9cb-469f-a165-70867728950e',
      headers: auth(issuer.key),
      remoteAddress: randomAddress(),
    });
    expectErrorBody(templated, 405, 'method_not_allowed');
    expect(templated.headers.allow).not.toContain('PUT');
    const unknown = await t.app.inject({ method: 'GET', url: '/no/such/path', remoteAddress: '198.51.100.100' });
    expectErrorBody(unknown, 404, 'not_found');
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/verify',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' },
      remoteAddress: '198.51.100.100',
    });
    expect(preflight.statusCode).toBe(204);
    // A preflight without its headers is refused with the Error body, not text/plain.
    for (const headers of [{}, { origin: 'https://elsewhere.example' }, { 'access-control-request-method': 'POST' }]) {
      const bad = await t.app.inject({
        method: 'OPTIONS',
        url: '/api/v1/verify',
        headers,
        remoteAddress: randomAddress(),
      });
      expect(bad.headers['content-type']).toBe('application/json; charset=utf-8');
      expectErrorBody(bad, 400, 'validation_failed');
      expect(bad.json().issues).toEqual([]);
    }
  });

  it('serves a landing page at / linking the API reference, the OpenAPI document and the embed guide', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/', remoteAddress: '198.51.100.110' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    for (const link of ['href="/docs"', 'href="/openapi.json"', 'href="#embed"', 'id="embed"']) {
      expect(res.body).toContain(link);
    }
    expect(res.body).toContain('https://badges.test/embed/v1.js');
    expect(res.body).toContain('data-service-credential');
  });
});

describe.each(dialects)('bulk verification costs the open limit by size on %s', (dialect) => {
  const redis = redisClient();
  const stores: [string, Redis | null][] = [['in-memory', null]];
  if (redis) stores.push(['Redis', redis]);
  afterAll(() => redis?.disconnect());

  it.each(stores)('charges one unit per 50 ids (%s store)', async (_name, store) => {
    const t = await createTestApp(dialect, { env: { OPEN_RATE_LIMIT_PER_MINUTE: '10' }, redis: store });
    try {
      const address = randomAddress();
      const bulk = (count: number) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/verify/bulk',
          payload: { ids: Array.from({ length: count }, (_, i) => `missing-${i}`) },
          remoteAddress: address,
        });
      const first = await bulk(101);
      expect(first.statusCode, first.body).toBe(200);
      expect(first.headers['x-ratelimit-remaining']).toBe('7');
      const second = await bulk(50);
      expect(second.headers['x-ratelimit-remaining']).toBe('6');
      const third = await bulk(300);
      expect(third.statusCode).toBe(200);
      expect(third.headers['x-ratelimit-remaining']).toBe('0');
      const refused = await bulk(1);
      expectErrorBody(refused, 429, 'rate_limited');
      // A bulk request past the remaining units is refused whole.
      const over = await t.app.inject({
        method: 'POST',
        url: '/api/v1/verify/bulk',
        payload: { ids: Array.from({ length: 1000 }, (_, i) => `missing-${i}`) },
        remoteAddress: randomAddress(),
      });
      expectErrorBody(over, 429, 'rate_limited');
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await t.close();
    }
  });
});
