import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { ENDORSEMENT_CLAIM_MAX, ENDORSEMENT_PENDING_MAX } from '../../src/core/endorsement-limits.js';
import { JSONLD_BUDGET } from '../../src/core/jsonld-budget.js';
import { LCW_BODY_LIMIT } from '../../src/modules/wallet/wallet.routes.js';
import { TX_CODE_ATTEMPTS } from '../../src/modules/wallet/wallet.terms.js';
import { startHarnessApp } from './lib/app.js';
import {
  createReport,
  type Engine,
  enginesFor,
  type ReliabilityReport,
  type RunOptions,
  round,
  scalar,
  tally,
} from './load.harness.js';

/** Issue 48.1: the attack's array (56 KB of numbers, inside the old object and depth limits). */
export const BOMB_NUMBERS = 11_000;
/** Issue 48.3: parallel guesses at one offer's transaction code. */
export const TX_GUESSES = 200;
/** Issue 48.4: endorsers flooding one definition of another issuer, past the pending cap. */
export const ENDORSERS = ENDORSEMENT_PENDING_MAX + 5;
const VOCAB = { '@vocab': 'https://attacker.example/vocab#' };
const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

interface Answer {
  status: number;
  body: Record<string, unknown>;
  ms: number;
}

/** One HTTP call to the running server, whatever the content type; never throws (status 0 on a network error). */
async function call(
  url: string,
  init: { method?: string; key?: string; type?: string; body?: string; address?: string } = {},
): Promise<Answer> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        ...(init.type ? { 'content-type': init.type } : {}),
        ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
      },
      ...(init.body === undefined ? {} : { body: init.body }),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      body = { raw: text.slice(0, 200) };
    }
    return { status: res.status, body, ms: performance.now() - started };
  } catch (err) {
    return { status: 0, body: { error: err instanceof Error ? err.name : 'error' }, ms: performance.now() - started };
  }
}

const issueCode = (a: Answer) => (a.body.issues as { code?: string }[] | undefined)?.[0]?.code ?? null;

export interface RoundThreeResult {
  engine: Engine;
  verifyBomb: { vocab: number; vocabIssue: string | null; bare: number; bareIssue: string | null; healthMs: number };
  lcwBomb: { oversized: number; numbers: number; numbersIssue: string | null; types: number; attemptsSpent: number };
  txCodes: {
    guesses: number;
    compared: number;
    statuses: Record<string, number>;
    rightAfter: number;
    failures: number;
  };
  endorsements: {
    given: Record<string, number>;
    pending: number;
    embedded: number;
    longClaim: number;
  };
}

async function issued(base: string, key: string, definitionId: string, serial: string) {
  const made = await call(`${base}/api/v1/credentials`, {
    key,
    type: 'application/json',
    body: JSON.stringify({ definitionId, recipientEmail: `round3-${serial}@example.test`, completionKey: serial }),
  });
  if (made.status !== 201) throw new Error(`issuing answered ${made.status}`);
  return String(made.body.credentialId);
}

async function leg(engine: Engine): Promise<RoundThreeResult> {
  const harness = await startHarnessApp(engine, {
    env: { SIGNING_KEY_SECRET: 'reliability-signing-key-secret-0123456789' },
  });
  try {
    const { app } = harness;
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const issuer = await harness.issuer('round-three');
    const definition = await call(`${base}/api/v1/definitions`, {
      key: issuer.key,
      type: 'application/json',
      body: JSON.stringify({ name: 'Round Three', description: 'Attacked', criteriaNarrative: 'Held' }),
    });
    const definitionId = String(definition.body.id);

    // 48.1: the public hosted credential with an inline @vocab and 11,000 numbers, anonymously.
    const credentialId = await issued(base, issuer.key, definitionId, 'bomb');
    const hosted = await call(`${base}/v1/issuers/${issuer.slug}/credentials/${credentialId}`);
    const credential = hosted.body;
    const numbers = Array.from({ length: BOMB_NUMBERS }, (_, i) => i);
    const present = (document: unknown) =>
      call(`${base}/api/v1/verify`, { type: 'application/vc', body: JSON.stringify(document) });
    const health = call(`${base}/health`);
    const [vocab, bare] = await Promise.all([
      present({ ...credential, '@context': [...(credential['@context'] as unknown[]), VOCAB], values: numbers }),
      present({ ...credential, values: numbers }),
    ]);
    const healthMs = (await health).ms;

    // 48.2: the LCW exchange: over its body limit, 20,000 numbers in proof, 40,000 type IRIs.
    const offerOf = async (body: object) => {
      const id = await issued(base, issuer.key, definitionId, `offer-${Math.random().toString(36).slice(2)}`);
      const made = await call(`${base}/api/v1/credentials/${id}/offers`, {
        key: issuer.key,
        type: 'application/json',
        body: JSON.stringify(body),
      });
      if (made.status !== 201) throw new Error(`an offer answered ${made.status}`);
      const lcw = new URL(String((made.body.learnerCredentialWallet as { url: string }).url));
      const exchange = String(lcw.searchParams.get('vc_request_url')).replace(harness.config.publicBaseUrl, base);
      return {
        code: String(made.body.credentialOfferUri).split('/').pop() ?? '',
        txCode: made.body.txCode as string | undefined,
        challenge: String(lcw.searchParams.get('challenge')),
        exchange,
      };
    };
    const lcwOffer = await offerOf({});
    const presentation = (extra: object) =>
      JSON.stringify({
        '@context': ['https://www.w3.org/ns/credentials/v2'],
        type: ['VerifiablePresentation'],
        holder: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
        proof: { type: 'DataIntegrityProof', challenge: lcwOffer.challenge, ...extra },
      });
    const exchange = (body: string) => call(lcwOffer.exchange, { type: 'application/json', body });
    // The review's 20,000 numbers no longer fit the exchange's body limit; one past the value budget does.
    const oversized = await exchange(presentation({ junk: new Array(20_000).fill(0) }));
    const lcwNumbers = await exchange(presentation({ junk: new Array(JSONLD_BUDGET.arrayElements + 1).fill(0) }));
    const types = await exchange(
      JSON.stringify({
        '@context': ['https://www.w3.org/ns/credentials/v2'],
        type: ['VerifiablePresentation', ...Array.from({ length: 40_000 }, (_, i) => `urn:t:${i}`)],
      }),
    );
    const lcwAttempts = await scalar(
      harness.database.db,
      sql`select coalesce(sum(lcw_attempts), 0) as n from wallet_offers where issuer_id = ${issuer.id}`,
    );

    // 48.3: 200 parallel wrong guesses at one offer's tx_code through the token endpoint.
    const txOffer = await offerOf({ txCode: true });
    const right = String(txOffer.txCode);
    const token = (txCode: string) =>
      call(`${base}/v1/issuers/${issuer.slug}/oid4vci/token`, {
        type: 'application/x-www-form-urlencoded',
        body: new URLSearchParams({
          grant_type: PRE_AUTH,
          'pre-authorized_code': txOffer.code,
          tx_code: txCode,
        }).toString(),
      });
    const guesses = await Promise.all(
      Array.from({ length: TX_GUESSES }, (_, i) => token(String((Number(right) + 1 + i) % 1_000_000).padStart(6, '0'))),
    );
    const compared = guesses.filter((g) => String(g.body.error_description ?? '').includes('transaction code')).length;
    const rightAfter = (await token(right)).status;
    const failures = await scalar(
      harness.database.db,
      sql`select coalesce(sum(tx_code_failures), 0) as n from wallet_offers where issuer_id = ${issuer.id}`,
    );

    // 48.4: other issuers flood the definition with endorsements: pending, capped, embedded in nothing.
    const badgeClass = `${harness.config.publicBaseUrl}/v1/issuers/${issuer.slug}/badges/${String(definition.body.slug)}`;
    const endorsers = [];
    for (let i = 0; i < ENDORSERS; i++) endorsers.push(await harness.issuer(`endorser-${i}`));
    const given = await Promise.all(
      endorsers.map((endorser, i) =>
        call(`${base}/api/v1/endorsements/given`, {
          key: endorser.key,
          type: 'application/json',
          body: JSON.stringify({ badgeClass, claim: `Flood ${i}: ${'x'.repeat(ENDORSEMENT_CLAIM_MAX - 20)}` }),
        }),
      ),
    );
    const longClaim = await call(`${base}/api/v1/endorsements/given`, {
      key: (await harness.issuer('endorser-long')).key,
      type: 'application/json',
      body: JSON.stringify({ badgeClass, claim: 'x'.repeat(5000) }),
    });
    const pending = await scalar(
      harness.database.db,
      sql`select count(*) as n from endorsement_credentials where definition_id = ${definitionId} and status = 'pending'`,
    );
    const fresh = await issued(base, issuer.key, definitionId, 'after-flood');
    const signed = await call(`${base}/v1/issuers/${issuer.slug}/credentials/${fresh}`);
    const embedded = Array.isArray(signed.body.endorsement) ? signed.body.endorsement.length : 0;

    return {
      engine,
      verifyBomb: {
        vocab: vocab.status,
        vocabIssue: issueCode(vocab),
        bare: bare.status,
        bareIssue: issueCode(bare),
        healthMs: round(healthMs, 1),
      },
      lcwBomb: {
        oversized: oversized.status,
        numbers: lcwNumbers.status,
        numbersIssue: issueCode(lcwNumbers),
        types: types.status,
        attemptsSpent: lcwAttempts,
      },
      txCodes: {
        guesses: TX_GUESSES,
        compared,
        statuses: tally(guesses.map((g) => g.status)),
        rightAfter,
        failures,
      },
      endorsements: { given: tally(given.map((g) => g.status)), pending, embedded, longClaim: longClaim.status },
    };
  } finally {
    await harness.close();
  }
}

/**
 * Issue 48's round-three attacks, each against a running server on every engine: the JSON-LD
 * verify bomb (11,000 numbers with an inline @vocab, and without it) is refused with a 400 before
 * any JSON-LD step; the LCW exchange refuses its body bomb (413) and its value bombs (400) without spending the
 * challenge's attempts; 200 parallel tx_code guesses compare exactly TX_CODE_ATTEMPTS codes, after
 * which the right code is refused too; endorsements flooded onto another issuer's definition stay
 * pending, stop at ENDORSEMENT_PENDING_MAX, and none is embedded in its next credential.
 */
export async function runRoundThree(options: RunOptions): Promise<ReliabilityReport> {
  const report = createReport('round-three', options);
  const results: RoundThreeResult[] = [];
  for (const engine of enginesFor(options)) {
    report.log(`${engine}: the round-three attack inputs against a running server`);
    const r = await leg(engine);
    results.push(r);
    report.figures[engine] = r;
    report.check(
      `${engine} JSON-LD verify bomb refused before JSON-LD`,
      r.verifyBomb.vocab === 400 &&
        r.verifyBomb.vocabIssue === 'inlineContext' &&
        r.verifyBomb.bare === 400 &&
        r.verifyBomb.bareIssue === 'arrayElements',
      `with @vocab ${r.verifyBomb.vocab} (${r.verifyBomb.vocabIssue}), without ${r.verifyBomb.bare} (${r.verifyBomb.bareIssue}); /health took ${r.verifyBomb.healthMs} ms meanwhile`,
    );
    report.check(
      `${engine} LCW exchange bombs refused, no attempt spent`,
      r.lcwBomb.oversized === 413 &&
        r.lcwBomb.numbers === 400 &&
        r.lcwBomb.numbersIssue === 'arrayElements' &&
        (r.lcwBomb.types === 400 || r.lcwBomb.types === 413) &&
        r.lcwBomb.attemptsSpent === 0,
      `20,000 numbers ${r.lcwBomb.oversized} (over ${LCW_BODY_LIMIT} bytes), ${JSONLD_BUDGET.arrayElements + 1} numbers ${r.lcwBomb.numbers} (${r.lcwBomb.numbersIssue}), 40,000 types ${r.lcwBomb.types}; ${r.lcwBomb.attemptsSpent} attempts spent`,
    );
    report.check(
      `${engine} parallel tx_code guesses compare exactly ${TX_CODE_ATTEMPTS}`,
      r.txCodes.compared === TX_CODE_ATTEMPTS &&
        r.txCodes.failures === TX_CODE_ATTEMPTS &&
        r.txCodes.rightAfter === 400 &&
        Object.keys(r.txCodes.statuses).join() === '400',
      `${r.txCodes.compared} of ${r.txCodes.guesses} compared, ${r.txCodes.failures} failures stored, the right code then ${r.txCodes.rightAfter}`,
    );
    report.check(
      `${engine} endorsement flood pending and capped`,
      r.endorsements.given['201'] === ENDORSEMENT_PENDING_MAX &&
        r.endorsements.given['409'] === ENDORSERS - ENDORSEMENT_PENDING_MAX &&
        r.endorsements.pending === ENDORSEMENT_PENDING_MAX &&
        r.endorsements.embedded === 0 &&
        r.endorsements.longClaim === 400,
      `given ${JSON.stringify(r.endorsements.given)}, ${r.endorsements.pending} pending, ${r.endorsements.embedded} embedded, a 5,000-character claim ${r.endorsements.longClaim}`,
    );
  }
  return report.finish(
    results
      .map(
        (r) => `${r.engine}: ${r.txCodes.compared} tx_codes compared, ${r.endorsements.pending} endorsements pending`,
      )
      .join('; '),
  );
}
