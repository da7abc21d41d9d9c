import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
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

/** Issue 46 §3: a wrong name is corrected by a linked replacement; the same badge twice is named. */
const EARNER = 'Anh.Nguyen@Example.TEST';

describe.each(dialects)('name corrections and already-held badges on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let definitionId: string;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  const post = (url: string, payload: object, key = a.key) =>
    t.app.inject({ method: 'POST', url, headers: auth(key), payload });
  const detail = async (id: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/credentials/${id}`, headers: auth(a.key) })).json();

  async function issue(completionKey: string, recipientName = 'Anh Nguy?n', email = EARNER) {
    const res = await post('/api/v1/credentials', {
      definitionId,
      recipientEmail: email,
      completionKey,
      recipientName,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().credentialId as string;
  }

  beforeAll(async () => {
    smtp = await startSmtpServer(() => 'accept');
    t = await createTestApp(dialect, {
      clock,
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'badges@accolade.test', NOTIFY_RATE_PER_MINUTE: '60000' },
    });
    a = await t.issuer();
    b = await t.issuer();
    const res = await post('/api/v1/definitions', {
      name: 'Welding',
      description: 'Welding level 1',
      expiresAfterDays: 365,
    });
    definitionId = res.json().id;
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it("replaces the credential with the corrected name and the original's dates, linked both ways, audited, once", async () => {
    const original = await issue('name:1');
    const before = await detail(original);
    clock.set('2026-11-25T10:00:00.000Z');
    const res = await post(`/api/v1/credentials/${original}/correct-name`, { recipientName: '  Anh Nguyễn ' });
    expect(res.statusCode, res.body).toBe(201);
    const corrected = res.json().credentialId as string;
    expect(res.json()).toMatchObject({ created: true, status: 'valid' });
    const now = await detail(corrected);
    expect(now).toMatchObject({
      recipientName: 'Anh Nguyễn',
      issuedOn: before.issuedOn,
      expiresOn: before.expiresOn,
      completionKey: 'name:1#name-1',
      replaces: original,
    });
    expect(await detail(original)).toMatchObject({
      status: 'revoked',
      revokedReason: 'reissued',
      replacedBy: corrected,
    });
    const again = await post(`/api/v1/credentials/${original}/correct-name`, { recipientName: 'Anh Nguyễn' });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ credentialId: corrected, created: false });
    const other = expectErrorBody(
      await post(`/api/v1/credentials/${original}/correct-name`, { recipientName: 'Someone Else' }),
      409,
      'credential_replaced',
    );
    expect(other.credentialId).toBe(corrected);
    const audit = await t.app.inject({
      method: 'GET',
      url: `/api/v1/audit?targetType=credential&targetId=${corrected}`,
      headers: auth(a.key),
    });
    const records = audit.json().items as { action: string; details: Record<string, unknown> }[];
    expect(records.map((r) => r.action)).toEqual(['credential.name_corrected']);
    expect(records[0]?.details).toEqual({ originalCredentialId: original, completionKey: 'name:1#name-1' });
    expect(JSON.stringify(records)).not.toContain('Nguy');
    const verify = await t.app.inject({ method: 'POST', url: '/api/v1/verify', payload: { id: corrected } });
    expect(verify.json()).toMatchObject({ status: 'valid', recipientName: 'Anh N.' });
  });

  it('emails the earner the corrected credential when asked with their address, and checks it is theirs', async () => {
    const original = await issue('name:mail');
    const wrong = await post(`/api/v1/credentials/${original}/correct-name`, {
      recipientName: 'Anh Nguyễn',
      notify: true,
      recipientEmail: 'someone@example.test',
    });
    expectErrorBody(wrong, 400, 'validation_failed');
    const sent = smtp.messages.length;
    const res = await post(`/api/v1/credentials/${original}/correct-name`, {
      recipientName: 'Anh Nguyễn',
      notify: true,
      recipientEmail: EARNER,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().notification).toBe('queued');
    await t.app.services.notifications.drain();
    await expect.poll(() => smtp.messages.length, { timeout: 30_000 }).toBe(sent + 1);
    expect(JSON.stringify(smtp.messages.at(-1)).toLowerCase()).toContain(EARNER.toLowerCase());
    expect(res.body.toLowerCase()).not.toContain(EARNER.toLowerCase());
  });

  it('refuses a blank, unchanged or email-shaped name, a revoked credential, no key and another issuer', async () => {
    const original = await issue('name:refuse');
    const url = `/api/v1/credentials/${original}/correct-name`;
    expectErrorBody(await post(url, {}), 400, 'validation_failed');
    expectErrorBody(await post(url, { recipientName: '   ' }), 400, 'validation_failed');
    expectErrorBody(await post(url, { recipientName: 'Anh Nguy?n' }), 400, 'validation_failed');
    expectErrorBody(await post(url, { recipientName: 'anh@example.test' }), 400, 'validation_failed');
    expectErrorBody(await post(url, { recipientName: 'Line\nBreak' }), 400, 'validation_failed');
    await expectKeyRequired(t.app, { method: 'POST', url, payload: { recipientName: 'Anh Nguyễn' } });
    await expectHiddenFromOtherIssuer(
      t.app,
      b.key,
      { method: 'POST', url, payload: { recipientName: 'Anh Nguyễn' } },
      {
        method: 'POST',
        url: '/api/v1/credentials/00000000-0000-4000-8000-000000000000/correct-name',
        payload: { recipientName: 'Anh Nguyễn' },
      },
    );
    await post(`/api/v1/credentials/${original}/revoke`, { reason: 'issued in error' });
    const revoked = expectErrorBody(await post(url, { recipientName: 'Anh Nguyễn' }), 409, 'credential_revoked');
    expect(revoked.credentialId).toBe(original);
    expect((await detail(original)).replacedBy).toBeNull();
  });

  it('names the credential a recipient already holds when asked to refuse a second one, and issues on confirmation', async () => {
    const email = 'twice@example.test';
    const held = await issue('twice:1', 'Twice Person', email);
    const body = {
      definitionId,
      recipientEmail: ' TWICE@example.test',
      completionKey: 'twice:2',
      ifAlreadyHeld: 'refuse',
    };
    const refused = expectErrorBody(await post('/api/v1/credentials', body), 409, 'already_held');
    expect(refused.credentialId).toBe(held);
    expect(JSON.stringify(refused)).not.toContain('twice@');
    const replay = await post('/api/v1/credentials', { ...body, completionKey: 'twice:1' });
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toMatchObject({ credentialId: held, created: false });
    const anyway = await post('/api/v1/credentials', { ...body, ifAlreadyHeld: 'issue' });
    expect(anyway.statusCode, anyway.body).toBe(201);
    expect(anyway.json().credentialId).not.toBe(held);
    const plain = await post('/api/v1/credentials', { definitionId, recipientEmail: email, completionKey: 'twice:3' });
    expect(plain.statusCode, plain.body).toBe(201);
    await post(`/api/v1/credentials/${held}/revoke`, { reason: 'wrong course' });
    const other = await issue('other:1', 'Other', 'other@example.test');
    await post(`/api/v1/credentials/${other}/revoke`, { reason: 'wrong course' });
    const afterRevoke = await post('/api/v1/credentials', {
      definitionId,
      recipientEmail: 'other@example.test',
      completionKey: 'other:2',
      ifAlreadyHeld: 'refuse',
    });
    expect(afterRevoke.statusCode, afterRevoke.body).toBe(201);
    expectErrorBody(await post('/api/v1/credentials', { ...body, ifAlreadyHeld: 'maybe' }), 400, 'validation_failed');
  });
});
