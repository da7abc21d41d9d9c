import { performance } from 'node:perf_hooks';
import jsonld from 'jsonld';
import { JSONLD_BUDGET, jsonLdCost, measureJsonLd } from '../src/core/jsonld-budget.js';
import { documentLoader } from '../src/modules/vc/contexts.js';
import { CREDENTIAL_VERIFY_COST } from '../src/modules/verification/verification.routes.js';
import { freshBenchDatabase } from './lib/harness.js';
import { seed } from './lib/setup.js';

/**
 * `npx tsx bench/jsonld-budget.ts`: how long the Data Integrity check of a credential given as
 * JSON holds the event loop, for a signed credential of this service and for the worst documents
 * within JSONLD_BUDGET (src/core/jsonld-budget.ts), each built on that credential as an attacker
 * would (issue 48.1: the hosted credential plus an `@vocab` context and one long array). The inputs
 * the budget refuses are timed too, by their expansion to RDF alone (jsonld.toRDF), to show what it
 * keeps off the event loop.
 * Prints one row per input: values counted, the rate-limit units it costs (refused past the caps),
 * median and max ms, and the median ms each unit pays for (the served credential's is the reference).
 */
const RUNS = 7;
const loader = documentLoader();
const WARM_UP = 20;

type Doc = Record<string, unknown>;

const VOCAB = { '@vocab': 'https://example.test/vocab#' };

/** The issue's form: an inline `@vocab` (refused now, as every inline context is). */
function withVocab(credential: Doc, extra: Doc): Doc {
  const context = credential['@context'] as unknown[];
  return { ...credential, '@context': [...context, VOCAB], ...extra };
}

/**
 * Terms no context defines need no inline `@vocab`: the VC Data Model 2.0 context maps them to
 * its issuer-dependent vocabulary, so an attacker adds bare members.
 */
function withMembers(credential: Doc, extra: Doc): Doc {
  return { ...credential, ...extra };
}

/** Room left under each cap after the credential itself. */
function room(credential: Doc) {
  const measured = measureJsonLd(credential);
  if ('issue' in measured) throw new Error('the served credential is over the budget');
  const { work } = measured;
  return {
    elements: JSONLD_BUDGET.arrayElements - work.arrayElements - 1,
    objects: JSONLD_BUDGET.objects - work.objects - 2,
    scalars: JSONLD_BUDGET.scalars - work.scalars - 1,
    bytes: JSONLD_BUDGET.stringBytes - work.stringBytes - 64,
  };
}

function inputs(credential: Doc): [string, Doc][] {
  const left = room(credential);
  const numbers = Math.min(left.elements, left.scalars);
  const objects = Math.min(left.objects, left.elements);
  const keys = Math.min(left.scalars, 1000);
  const achievements = Math.floor(left.objects / 3);
  const scoped = Math.floor((left.objects - 4) / 2);
  const terms = Math.min(left.scalars - scoped - 8, 1000);
  return [
    ['signed credential as served', credential],
    [
      `${numbers} numbers in one array`,
      withMembers(credential, { values: Array.from({ length: numbers }, (_, i) => i) }),
    ],
    [
      `${numbers} distinct strings in one array`,
      withMembers(credential, { values: Array.from({ length: numbers }, (_, i) => `v${i}`) }),
    ],
    [
      `${objects} objects in one array`,
      withMembers(credential, { things: Array.from({ length: objects }, (_, i) => ({ n: i })) }),
    ],
    [
      `${keys} properties of one object`,
      withMembers(credential, { wide: Object.fromEntries(Array.from({ length: keys }, (_, i) => [`p${i}`, i])) }),
    ],
    [
      `${numbers} type IRIs`,
      {
        ...credential,
        type: [...(credential.type as string[]), ...Array.from({ length: numbers }, (_, i) => `urn:t:${i}`)],
      },
    ],
    [
      `a scoped context of ${terms} terms, used by ${scoped} objects`,
      {
        ...credential,
        '@context': [
          ...(credential['@context'] as unknown[]),
          {
            ...VOCAB,
            scoped: {
              '@id': 'https://example.test/vocab#scoped',
              '@context': Object.fromEntries(Array.from({ length: terms }, (_, i) => [`t${i}`, `urn:t:${i}`])),
            },
          },
        ],
        things: Array.from({ length: scoped }, (_, i) => ({ scoped: { t0: i } })),
      },
    ],
    [
      `${achievements} Achievement objects (a type-scoped context each, published contexts only)`,
      {
        ...credential,
        credentialSubject: {
          ...(credential.credentialSubject as Doc),
          achievement: Array.from({ length: achievements }, (_, i) => ({
            id: `urn:a:${i}`,
            type: ['Achievement'],
            name: `n${i}`,
            criteria: { narrative: 'c' },
          })),
        },
      },
    ],
    ['one string of the whole byte budget', withMembers(credential, { text: 'x'.repeat(left.bytes) })],
    ['over the caps: 11,000 numbers', withMembers(credential, { values: Array.from({ length: 11_000 }, (_, i) => i) })],
    [
      'over the caps: 11,000 numbers, @vocab (issue 48.1)',
      withVocab(credential, { values: Array.from({ length: 11_000 }, (_, i) => i) }),
    ],
  ];
}

const ms = (value: number) => value.toFixed(2);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
  const db = await freshBenchDatabase('sqlite', null);
  const seeded = await seed(db.url);
  try {
    const outcome = await seeded.app.services.issuance.issue(seeded.issuerId, 'bench', {
      definitionId: seeded.definitionId,
      recipientEmail: 'budget@bench.example',
      recipientName: 'Budget Learner',
      completionKey: 'jsonld-budget',
      source: 'api',
    });
    const served = await seeded.app.inject({
      method: 'GET',
      url: `/v1/issuers/${seeded.issuerSlug}/credentials/${outcome.row.id}`,
      headers: { accept: 'application/ld+json' },
    });
    const credential = served.json() as Doc;
    const reader = seeded.app.services.vc.presented;
    const refused = (document: Doc) => {
      const measured = measureJsonLd(document);
      return 'issue' in measured ? `refused (${measured.issue.code})` : null;
    };
    // The libraries load at first use, and V8 compiles them over the first checks: not part of any row.
    for (let i = 0; i < WARM_UP; i++) await reader.json(structuredClone(credential));
    console.log('input | values | units | median ms | max ms | ms per unit | authentic');
    for (const [name, document] of inputs(credential)) {
      const measured = measureJsonLd(document);
      const within = !('issue' in measured);
      const values = within ? measured.work.objects + measured.work.arrayElements + measured.work.scalars : NaN;
      const units = within ? jsonLdCost(measured.work, CREDENTIAL_VERIFY_COST) : NaN;
      const runs = within ? RUNS : 1;
      const times: number[] = [];
      let authentic = false;
      for (let i = 0; i < runs; i++) {
        const start = performance.now();
        // A refused document never reaches the reader now: its expansion to RDF alone is what was kept off the loop.
        if (within) authentic = (await reader.json(structuredClone(document))) !== null;
        else await jsonld.toRDF(structuredClone(document), { documentLoader: loader });
        times.push(performance.now() - start);
      }
      const perUnit = within ? ms(median(times) / units) : '-';
      console.log(
        `${name} | ${within ? values : '-'} | ${within ? units : refused(document)} | ${ms(median(times))} | ${ms(Math.max(...times))} | ${perUnit} | ${authentic}`,
      );
    }
  } finally {
    await seeded.close();
    await db.drop();
  }
}

await main();
