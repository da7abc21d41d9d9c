import { afterAll, describe, expect, it } from 'vitest';
import { type FuzzResult, fuzzSummary, QUICK_CASES, runFuzz } from '../scripts/reliability/fuzz.js';
import { startHarnessApp } from '../scripts/reliability/lib/app.js';
import { createContractChecker } from '../scripts/reliability/lib/contract.js';
import { loadApiDocument } from '../scripts/reliability/lib/openapi.js';
import { writeReport } from '../scripts/reliability/lib/report.js';
import { dialects } from './helpers.js';

/** Quick tier of T5; the full tier is `npx tsx scripts/reliability/fuzz.ts --cases 500`. */
const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const results: FuzzResult[] = [];

afterAll(() => {
  if (results.length > 0) writeReport('fuzz', { seed, results });
});

describe('the contract checker', () => {
  it('flags a 5xx, an undocumented status, a body off its schema and a 4xx that is not an Error body', async () => {
    const harness = await startHarnessApp('sqlite');
    try {
      const document = await loadApiDocument(harness.app);
      const op = document.operations.find((o) => o.operationId === 'getCredential');
      expect(op).toBeDefined();
      if (!op) return;
      const checker = createContractChecker();
      const json = { 'content-type': 'application/json; charset=utf-8' };
      const rules = (statusCode: number, body: string, headers: Record<string, string> = json) =>
        checker.check(op, { statusCode, headers, body }).map((v) => v.rule);
      expect(rules(404, '{"error":"not_found","message":"Credential not found."}')).toEqual([]);
      expect(rules(500, '{"error":"internal_error"}')).toContain('server-error');
      expect(rules(418, '{"error":"teapot"}')).toEqual(['undocumented-status']);
      expect(rules(200, '{"id":"x"}')).toEqual(['schema-mismatch']);
      expect(rules(404, '{"statusCode":404}')).toEqual(expect.arrayContaining(['not-an-error-body']));
      expect(rules(404, '<h1>no</h1>', { 'content-type': 'text/html' })).toEqual(['undocumented-content-type']);
      expect(document.validationErrors).toEqual([]);
    } finally {
      await harness.close();
    }
  });
});

const NEEDS_SINGLE_USE_SECRET = new Set([
  'getCredentialOffer',
  'redeemPreAuthorizedCode',
  'requestCredential',
  'exchangeLearnerCredentialWallet',
  // A console user's password, and the unsubscribe token only an earner's email carries.
  'signIn',
  'getUnsubscribePage',
  'unsubscribe',
  // The backpack: a sign-in link's token, or a signed-in earner's session and its CSRF token (and
  // the link request needs a mail server): test/backpack.test.ts drives them to success.
  'requestBackpackSignInLink',
  'signInToBackpack',
  'signOutOfBackpack',
  'offerBackpackBadgeToWallet',
  'deleteBackpackAccount',
  // The backpack's other forms take the same session and CSRF token: test/backpack-import,
  // backpack-collections and backpack-apps drive them to success.
  'importIntoBackpack',
  'checkBackpackImport',
  'deleteBackpackImport',
  'createBackpackCollection',
  'addToBackpackCollection',
  'removeFromBackpackCollection',
  'setBackpackCollectionVisibility',
  'deleteBackpackCollection',
  'revokeBackpackConnectedApp',
  'checkBackpackSentCredential',
  // Sending to another platform: the form post takes the session and CSRF token, the callback the
  // session and a single-use state only the remote's redirect carries (test/backpack-send).
  'startBackpackSend',
  'finishBackpackSend',
  // Capabilities no schema can generate: a public collection's random address, the earner's
  // certificate link (an HMAC token) and a wallet offer's code and challenge (test/backpack-collections,
  // certificate-links and wallet-offer-page open them).
  'getPublicCollection',
  'getEarnerCertificate',
  'getWalletOfferPage',
  // The Open Badges API: an earner's access token, which only the authorization flow gives
  // (test/obapi.test.ts drives them to success).
  'getObCredentials',
  'upsertObCredential',
  'getObProfile',
  'putObProfile',
]);
/**
 * The issuer's OpenID Connect sign-in settings succeed only once a provider has answered its
 * discovery document (a PUT checks it at once; the reads and the delete answer 404 before), and no
 * such provider runs here: test/sso.test.ts drives them against oidc-provider.
 */
const NEEDS_OIDC_PROVIDER = new Set(['putSsoSettings', 'getSsoSettings', 'removeSsoSettings', 'getSsoLoginOptions']);
/**
 * The LTI legs succeed only inside a launch: a single-use registration URL opened by an LMS, a
 * login of a registered platform, an id_token that platform signed, and the sealed tokens of the
 * pages it leads to. test/lti.test.ts drives each to success against a simulated platform.
 */
const NEEDS_LTI_PLATFORM = new Set([
  'startLtiRegistration',
  'ltiLogin',
  'ltiLoginPost',
  'ltiLaunch',
  'ltiDeepLink',
  'ltiAwardSelected',
  'ltiCheckScores',
]);

describe.each(dialects)('fuzzing every operation of the OpenAPI document on %s', (dialect) => {
  it(`answers ${QUICK_CASES[dialect]} generated and mutated cases per operation within the document (seed ${seed})`, async () => {
    const result = await runFuzz({ dialect, seed, casesPerOperation: QUICK_CASES[dialect] });
    results.push(result);
    process.stdout.write(`${fuzzSummary(result)}\n`);
    expect(result.documentProblems).toEqual([]);
    expect(result.totals.operations).toBeGreaterThanOrEqual(50);
    expect(result.totals.cases).toBe(result.totals.operations * QUICK_CASES[dialect]);
    // Each documented path was asked for the methods it does not document (405 and its Allow).
    expect(result.totals.frontDoorProbes).toBeGreaterThan(result.totals.operations);
    expect(result.totals.serverErrors).toBe(0);
    expect(result.failureGroups).toEqual([]);
    expect(result.errorLogSamples).toEqual([]);
    // Valid cases must reach past validation and lookups somewhere, or the run tested only the edges:
    // any success counts (202 queued, 204 deleted, 302 redirected too).
    const succeeded = (o: FuzzResult['operations'][number]) =>
      Object.entries(o.statuses).some(([status, n]) => Number(status) >= 200 && Number(status) < 400 && n > 0);
    // The wallet protocol's redemption steps succeed only with a single-use secret no schema can
    // generate (an offer code, an access token with the holder's proof, a wallet's signed
    // presentation over a challenge), sign-in only with a password and unsubscribing only with an
    // email's token, and the sign-in settings only with an OpenID provider: test/wallet-*.test.ts,
    // console-accounts, notifications and sso drive them to success; here they are held to the
    // other rules only.
    const reachable = result.operations.filter(
      (o) =>
        !NEEDS_SINGLE_USE_SECRET.has(o.operationId) &&
        !NEEDS_OIDC_PROVIDER.has(o.operationId) &&
        !NEEDS_LTI_PLATFORM.has(o.operationId),
    );
    expect(reachable.filter(succeeded).length).toBeGreaterThan(reachable.length * 0.9);
  }, 240_000);
});
