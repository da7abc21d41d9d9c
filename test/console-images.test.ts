import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleUser, consoleUser } from './console.support.js';
import { auth, createTestApp, dialects, expectErrorBody, type TestApp, type TestIssuer } from './helpers.js';
import { pngHeader } from './images.support.js';

const HOSTILE_SVG = `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10" onload="alert(1)">
  <script>alert(2)</script>
  <defs><circle id="dot" r="2"/></defs>
  <a href="javascript:alert(3)"><rect width="5" height="5" fill="#123456"/></a>
  <use href="https://evil.example/sprite.svg#x"/>
  <use xlink:href="https://evil.example/sprite.svg#y"/>
  <use href="#dot"/>
  <foreignObject><iframe src="https://evil.example"></iframe></foreignObject>
</svg>`;

describe.each(dialects)('console images on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let member: ConsoleUser;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    issuer = await t.issuer();
    member = await consoleUser(t.app, issuer.id, 'issuer');
  });
  afterAll(async () => {
    await t.close();
  });

  const upload = (type: string, payload: Buffer | string, headers: Record<string, string> = member.headers) =>
    t.app.inject({ method: 'POST', url: '/api/v1/images', headers: { ...headers, 'content-type': type }, payload });

  it('sanitises an SVG: no script, no event handlers, no javascript: links, no external references', async () => {
    const res = await upload('image/svg+xml', HOSTILE_SVG);
    expect(res.statusCode, res.body).toBe(201);
    const { id, url, contentType } = res.json();
    expect(contentType).toBe('image/svg+xml');
    expect(url).toBe(`https://badges.test/v1/images/${id}`);

    const served = await t.app.inject({ method: 'GET', url: `/v1/images/${id}` });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/svg+xml');
    expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'; sandbox");
    const svg = served.body;
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    for (const gone of ['<script', 'alert', 'onload', 'javascript:', 'evil.example', 'foreignObject', 'iframe']) {
      expect(svg, gone).not.toContain(gone);
    }
    expect(svg).toContain('href="#dot"');
    expect(svg).toContain('fill="#123456"');
  });

  it('refuses what is not an SVG root, and PNGs that are not PNGs or are too large', async () => {
    for (const body of ['<html><body><svg></svg></body></html>', '<p>hello</p>', 'plain text']) {
      expectErrorBody(await upload('image/svg+xml', body), 400, 'invalid_image');
    }
    expectErrorBody(
      await upload('image/png', Buffer.from('GIF89a not a png at all, long enough to read')),
      400,
      'invalid_image',
    );
    expectErrorBody(await upload('image/png', pngHeader(4096, 10)), 400, 'invalid_image');
    expectErrorBody(
      await upload('image/png', Buffer.concat([pngHeader(10, 10), Buffer.alloc(256 * 1024)])),
      413,
      'payload_too_large',
    );
    expectErrorBody(await upload('image/gif', Buffer.from('GIF89a')), 415, 'unsupported_media_type');
  });

  it('stores a PNG as sent, takes an API key, and the URL can be a definition image', async () => {
    const bytes = pngHeader(512, 512);
    const res = await upload('image/png', bytes, auth(issuer.key));
    expect(res.statusCode, res.body).toBe(201);
    const served = await t.app.inject({ method: 'GET', url: `/v1/images/${res.json().id}` });
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.rawPayload.equals(bytes)).toBe(true);
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(issuer.key),
      payload: { name: 'Pictured', description: 'd', imageUrl: res.json().url },
    });
    expect(definition.statusCode, definition.body).toBe(201);
    expect(definition.json().imageUrl).toBe(res.json().url);
  });

  it('a viewer may not upload, and an unknown image is 404', async () => {
    const viewer = await consoleUser(t.app, issuer.id, 'viewer');
    expectErrorBody(await upload('image/png', pngHeader(1, 1), viewer.headers), 403, 'forbidden');
    expectErrorBody(await t.app.inject({ method: 'GET', url: '/v1/images/nothing-here' }), 404, 'not_found');
  });
});
