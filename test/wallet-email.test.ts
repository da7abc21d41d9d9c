import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';

const EMAIL = 'Ada.Wallet+Canary@Example.TEST';
const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

describe.each(dialects)('the notification email’s wallet offer on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const clock = manualClock('2026-03-02T09:00:00.000Z');

  beforeAll(async () => {
    smtp = await startSmtpServer(() => 'accept');
    t = await createTestApp(dialect, {
      clock,
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'badges@accolade.test',
        NOTIFY_RATE_PER_MINUTE: '60000',
        SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef',
      },
    });
    a = await t.issuer({ slug: `wallet-mail-${dialect}`, name: 'Mail Academy' });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('carries an "Add to your wallet" button and QR code whose offer redeems once, without a tx_code', async () => {
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Wallets', description: 'Carrying badges' },
    });
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId: definition.json().id, recipientEmail: EMAIL, completionKey: 'mail:1', notify: true },
    });
    expect(issued.statusCode, issued.body).toBe(201);
    await t.app.services.notifications.drain();
    const mail = smtp.messages.at(-1);
    expect(mail?.decoded).toContain('Add to your wallet');
    expect(mail?.decoded).toMatch(/<img src="data:image\/png;base64,[A-Za-z0-9+/=]+" alt="Add to your wallet"/);
    // The button opens the offer's page (issue 46: the wallet explained), which carries the offer itself.
    const pageUrl = /href="(https:\/\/badges\.test\/wallet\/[^"]+)"[^>]*>Add to your wallet</.exec(
      mail?.decoded ?? '',
    )?.[1];
    expect(pageUrl).toBeDefined();
    const page = await t.app.inject({ method: 'GET', url: (pageUrl as string).replace('https://badges.test', '') });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('What is a wallet?');
    const offer = /href="(openid-credential-offer:\/\/\?credential_offer_uri=[^"]+)"/.exec(page.body)?.[1];
    expect(offer).toBeDefined();
    expect(mail?.decoded).toMatch(
      /href="https:\/\/lcw\.app\/request\.html\?issuer=[^"]+&amp;auth_type=bearer&amp;challenge=/,
    );
    expect(mail?.decoded).toContain('Add to the Learner Credential Wallet');
    const reference = new URL((offer as string).replaceAll('&amp;', '&')).searchParams.get(
      'credential_offer_uri',
    ) as string;
    const object = await t.app.inject({ method: 'GET', url: reference.replace('https://badges.test', '') });
    expect(object.statusCode).toBe(200);
    const grant = object.json().grants[PRE_AUTH];
    expect(grant.tx_code).toBeUndefined();
    const redeem = () =>
      t.app.inject({
        method: 'POST',
        url: `/v1/issuers/${a.slug}/oid4vci/token`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: PRE_AUTH,
          'pre-authorized_code': grant['pre-authorized_code'],
        }).toString(),
      });
    expect((await redeem()).statusCode).toBe(200);
    const again = await redeem();
    expect(again.statusCode).toBe(400);
    expect(again.json().error).toBe('invalid_grant');
    const audit = await t.database.db
      .selectFrom('audit_log')
      .select(['actor', 'details'])
      .where('issuer_id', '=', a.id)
      .where('action', '=', 'wallet_offer.created')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]?.actor).toBe('system');
    expect(audit[0]?.details).toContain('"channel":"email"');
    expect(audit[0]?.details).not.toContain('Ada');
  });
});
