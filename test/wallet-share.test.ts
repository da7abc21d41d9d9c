import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createTestApp, dialects, type TestApp } from './helpers.js';
import { createDefinition, type Issued, issue } from './verification.support.js';

const APPLE = 'https://passes.example/apple?assertion={assertionUrl}';
const GOOGLE = 'https://passes.example/google/{assertionUrl}';

describe('wallet pass configuration', () => {
  it('takes http(s) links holding {assertionUrl} and nothing else', () => {
    expect(loadConfig({ WALLET_APPLE_PASS_URL: APPLE }).walletPassUrls).toEqual({
      wallet_apple: APPLE,
      wallet_google: null,
    });
    expect(loadConfig({ WALLET_GOOGLE_PASS_URL: GOOGLE }).walletPassUrls.wallet_google).toBe(GOOGLE);
    expect(loadConfig({}).walletPassUrls).toEqual({ wallet_apple: null, wallet_google: null });
    for (const bad of [
      'https://passes.example/apple',
      'javascript:{assertionUrl}',
      'https://x.example/ {assertionUrl}',
    ]) {
      expect(() => loadConfig({ WALLET_GOOGLE_PASS_URL: bad }), bad).toThrow(/WALLET_GOOGLE_PASS_URL/);
    }
  });
});

describe.each(dialects)('wallet share actions on %s', (dialect) => {
  const apps: TestApp[] = [];
  let bare: TestApp;
  let apple: TestApp;
  let bareCredential: Issued;
  let appleCredential: Issued;

  const engagements = async (t: TestApp, credentialId: string) => {
    await t.app.services.verification.events.flush();
    return t.database.db
      .selectFrom('engagement_events')
      .select('action')
      .where('credential_id', '=', credentialId)
      .execute();
  };
  const setUp = async (env: Record<string, string>) => {
    const t = await createTestApp(dialect, { env });
    apps.push(t);
    const issuer = await t.issuer();
    const definition = await createDefinition(t, issuer);
    return { t, credential: await issue(t, issuer, definition.id, { email: 'ada@example.test' }) };
  };

  beforeAll(async () => {
    ({ t: bare, credential: bareCredential } = await setUp({}));
    ({ t: apple, credential: appleCredential } = await setUp({ WALLET_APPLE_PASS_URL: APPLE }));
  });
  afterAll(async () => {
    for (const t of apps) await t.close();
  });

  it('answers 404 and counts nothing when no wallet is configured, and the page offers none', async () => {
    const path = new URL(bareCredential.verifyUrl).pathname;
    for (const action of ['wallet_apple', 'wallet_google']) {
      const res = await bare.app.inject({ method: 'GET', url: `${path}/share/${action}` });
      expect(res.statusCode, action).toBe(404);
      expect(res.headers.location, action).toBeUndefined();
    }
    expect(await engagements(bare, bareCredential.credentialId)).toEqual([]);
    const page = await bare.app.inject({ method: 'GET', url: path });
    expect(page.body).not.toMatch(/wallet/i);
  });

  it('sends a configured wallet to its pass service with the assertion URL, counts it, and shows only that button', async () => {
    const path = new URL(appleCredential.verifyUrl).pathname;
    const res = await apple.app.inject({ method: 'GET', url: `${path}/share/wallet_apple` });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(
      `https://passes.example/apple?assertion=${encodeURIComponent(appleCredential.assertionUrl)}`,
    );
    const google = await apple.app.inject({ method: 'GET', url: `${path}/share/wallet_google` });
    expect(google.statusCode).toBe(404);
    expect(await engagements(apple, appleCredential.credentialId)).toEqual([{ action: 'wallet_apple' }]);
    const page = await apple.app.inject({ method: 'GET', url: path });
    expect(page.body).toContain(`href="${path}/share/wallet_apple"`);
    expect(page.body).toContain('Add to Apple Wallet');
    expect(page.body).not.toContain('wallet_google');
  });
});
