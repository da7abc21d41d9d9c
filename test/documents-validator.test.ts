import { describe, expect, it } from 'vitest';
import { renderBadgeSvg, wrapLines } from '../src/modules/documents/badge-image.js';
import { negotiate } from '../src/modules/documents/negotiation.js';
import {
  bakedAssertion,
  type Fetch,
  identityHash,
  OB_CONTEXT,
  OB_V2_TERMS,
  validateHosted,
  xmlProblems,
} from './documents.support.js';
import { dialects } from './helpers.js';

/*
 * The validator-equivalent checks must catch what the 1EdTech validator catches, or the document tests
 * prove nothing: each case below breaks one rule in an otherwise valid hosted badge.
 */

const ORIGIN = 'https://badges.test';
const ISSUER = `${ORIGIN}/v1/issuers/acme`;
const BADGE = `${ISSUER}/badges/ds`;
const ASSERTION = `${ISSUER}/assertions/a1`;
const SALT = 'abc123';
const NOW = new Date('2026-03-02T09:00:00.000Z');

type Doc = Record<string, unknown>;

function hostedBadge(): Record<string, Doc> {
  return {
    [ISSUER]: {
      '@context': OB_CONTEXT,
      type: 'Issuer',
      id: ISSUER,
      name: 'Acme',
      url: 'https://acme.example',
      email: 'hi@acme.example',
    },
    [BADGE]: {
      '@context': OB_CONTEXT,
      type: 'BadgeClass',
      id: BADGE,
      name: 'DS',
      description: 'd',
      image: `${BADGE}/image.svg`,
      criteria: { narrative: 'n' },
      issuer: ISSUER,
    },
    [ASSERTION]: {
      '@context': OB_CONTEXT,
      type: 'Assertion',
      id: ASSERTION,
      recipient: { type: 'email', hashed: true, salt: SALT, identity: identityHash('ada@example.test', SALT) },
      badge: BADGE,
      verification: { type: 'hosted' },
      issuedOn: '2026-03-01T00:00:00.000Z',
    },
  };
}

function fakeFetch(docs: Record<string, Doc>): Fetch {
  return async (url) => {
    if (url.endsWith('/image.svg')) return { status: 200, contentType: 'image/svg+xml', body: '<svg/>' };
    const doc = docs[url];
    if (!doc) return { status: 404, contentType: 'application/json', body: '{"error":"not_found"}' };
    return { status: 200, contentType: 'application/ld+json; charset=utf-8', body: JSON.stringify(doc) };
  };
}

async function check(mutate: (docs: Record<string, Doc>) => void, recipientEmail?: string) {
  const docs = hostedBadge();
  mutate(docs);
  return validateHosted(ASSERTION, { fetch: fakeFetch(docs), now: NOW, ...(recipientEmail ? { recipientEmail } : {}) });
}

describe.each(dialects)('Open Badges validator-equivalent checks on %s', () => {
  it('lists the 81 terms of the v2 context', () => {
    expect(OB_V2_TERMS.size).toBe(81);
  });

  it('passes a valid hosted badge, recipient included', async () => {
    const report = await check(() => {}, 'Ada@Example.test');
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
    expect(report.fetched).toEqual([ASSERTION, BADGE, ISSUER, `${BADGE}/image.svg`]);
  });

  it.each([
    [
      'an id that differs from the URL',
      (d: Record<string, Doc>) => Object.assign(d[ASSERTION] ?? {}, { id: `${ASSERTION}?v=2` }),
      'warnings',
      'declared its id',
    ],
    [
      'a property outside the context',
      (d: Record<string, Doc>) => Object.assign(d[BADGE] ?? {}, { skills: ['x'] }),
      'errors',
      'not a term',
    ],
    [
      'an issuer without email',
      (d: Record<string, Doc>) => delete d[ISSUER]?.email,
      'errors',
      'Required property email',
    ],
    [
      'an issue date in the future',
      (d: Record<string, Doc>) => Object.assign(d[ASSERTION] ?? {}, { issuedOn: '2026-03-03T00:00:00Z' }),
      'errors',
      'in the future',
    ],
    [
      'a date without time zone',
      (d: Record<string, Doc>) => Object.assign(d[ASSERTION] ?? {}, { issuedOn: '2026-03-01T00:00:00' }),
      'errors',
      'DATETIME',
    ],
    [
      'expiry before issue',
      (d: Record<string, Doc>) => Object.assign(d[ASSERTION] ?? {}, { expires: '2026-02-01T00:00:00Z' }),
      'errors',
      'prior to issue date',
    ],
    [
      'an assertion off the issuer origin',
      (d: Record<string, Doc>) => {
        const elsewhere = 'https://other.example/i';
        d[elsewhere] = { ...d[ISSUER], id: elsewhere };
        Object.assign(d[BADGE] ?? {}, { issuer: elsewhere });
      },
      'errors',
      'not hosted in allowed origins',
    ],
    [
      'criteria without id or narrative',
      (d: Record<string, Doc>) => Object.assign(d[BADGE] ?? {}, { criteria: {} }),
      'errors',
      'no narrative',
    ],
    [
      'a hashed flag on a plain identity',
      (d: Record<string, Doc>) =>
        Object.assign(d[ASSERTION] ?? {}, { recipient: { type: 'email', hashed: true, identity: 'ada@example.test' } }),
      'errors',
      'known hash style',
    ],
    ['a badge without image', (d: Record<string, Doc>) => delete d[BADGE]?.image, 'errors', 'image'],
    [
      'an alignment without targetUrl',
      (d: Record<string, Doc>) => Object.assign(d[BADGE] ?? {}, { alignment: [{ targetName: 'x' }] }),
      'errors',
      'targetUrl',
    ],
    [
      'a language inside the context (the 1EdTech validator takes the OB v2 context URL alone)',
      (d: Record<string, Doc>) => Object.assign(d[BADGE] ?? {}, { '@context': [OB_CONTEXT, { '@language': 'fr' }] }),
      'errors',
      '@context is',
    ],
    [
      'a top-level @language that is no language tag',
      (d: Record<string, Doc>) => Object.assign(d[BADGE] ?? {}, { '@language': 'français' }),
      'errors',
      'not a BCP 47 tag',
    ],
    [
      'an unreachable endorsement',
      (d: Record<string, Doc>) => Object.assign(d[BADGE] ?? {}, { endorsement: [`${ISSUER}/endorsements/none`] }),
      'errors',
      'answered 404',
    ],
  ] as const)('catches %s', async (_name, mutate, kind, message) => {
    const report = await check(mutate);
    expect(report[kind]).toEqual(expect.arrayContaining([expect.stringContaining(message)]));
  });

  it('takes a top-level @language and related editions with theirs', async () => {
    const report = await check((d) => {
      Object.assign(d[BADGE] ?? {}, {
        '@language': 'en',
        version: '2026.1',
        related: [
          { id: `${BADGE}/in/fr`, '@language': 'fr' },
          { id: `${BADGE}/versions/1`, version: '1' },
        ],
      });
    });
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
  });

  it('checks an extension against its hosted context and the JSON Schema that context links', async () => {
    const context = `${ORIGIN}/ext/context.json`;
    const schema = `${ORIGIN}/ext/schema.json`;
    const extended = (extension: Doc) =>
      check((d) => {
        d[context] = {
          '@context': { humanCode: { '@id': 'https://example.test/vocab#humanCode' } },
          'obi:validation': [{ 'obi:validatesType': 'extensions:Code', 'obi:validationSchema': schema }],
        };
        d[schema] = {
          type: 'object',
          properties: { humanCode: { type: 'string', maxLength: 5 } },
        };
        Object.assign(d[BADGE] ?? {}, { 'extensions:Code': extension });
      });
    const good = { '@context': context, type: ['Extension', 'extensions:Code'], humanCode: 'CS-1' };
    expect((await extended(good)).errors).toEqual([]);
    expect((await extended({ ...good, level: 3 })).errors).toEqual([
      expect.stringContaining(`Property level of extension`),
    ]);
    expect((await extended({ ...good, humanCode: 'CS-101-long' })).errors).toEqual([expect.stringContaining('fails')]);
    expect((await extended({ ...good, type: ['extensions:Code'] })).errors).toEqual([
      expect.stringContaining('no type Extension'),
    ]);
    expect((await extended({ ...good, '@context': `${ORIGIN}/ext/missing.json` })).errors).toEqual([
      expect.stringContaining('answered 404'),
    ]);
  });

  it('checks an endorsement, its claim and its issuer profile', async () => {
    const endorsement = `${ISSUER}/endorsements/e1`;
    const report = await check((d) => {
      Object.assign(d[BADGE] ?? {}, { endorsement: [endorsement] });
      d[endorsement] = {
        '@context': OB_CONTEXT,
        type: 'Endorsement',
        id: endorsement,
        claim: 'https://badges.test/not-embedded',
        issuer: `${endorsement}/issuer`,
        issuedOn: '2026-03-01T00:00:00Z',
      };
      d[`${endorsement}/issuer`] = { '@context': OB_CONTEXT, type: 'Profile', id: `${endorsement}/issuer`, name: 'E' };
    });
    expect(report.errors).toEqual(
      expect.arrayContaining([
        expect.stringContaining('claim of Endorsement'),
        expect.stringContaining('Required property verification'),
        expect.stringContaining('Required property url'),
        expect.stringContaining('Required property email'),
      ]),
    );
  });

  it('recognises a wrong recipient', async () => {
    const report = await check(() => {}, 'eve@example.test');
    expect(report.errors).toEqual([expect.stringContaining('did not match')]);
  });

  it('flags broken XML and finds the baked assertion', () => {
    expect(xmlProblems('<svg><a></svg>')).not.toEqual([]);
    expect(xmlProblems('<svg>&nbsp;</svg>')).toEqual([expect.stringContaining('entity')]);
    expect(xmlProblems('<svg><x:y/></svg>')).toEqual([expect.stringContaining('undeclared namespace prefix x')]);
    expect(xmlProblems('<svg a="1" a="2"/>')).toEqual([expect.stringContaining('duplicate attribute')]);
    const json = JSON.stringify({ id: 'https://x.test/a', note: 'a ]]> b <c> & "d"' });
    const svg = renderBadgeSvg(
      { name: 'N', issuerName: 'I', brandColor: null },
      { verifyUrl: 'https://x.test/a?b=1&c=2', assertionJson: json },
    );
    expect(xmlProblems(svg)).toEqual([]);
    expect(svg.match(/\]\]>/g)).toHaveLength(1);
    expect(bakedAssertion(svg)).toEqual({
      namespace: 'http://openbadges.org',
      verify: 'https://x.test/a?b=1&c=2',
      json: JSON.parse(json),
    });
  });
});

describe.each(dialects)('badge image and negotiation units on %s', () => {
  it('wraps badge names on words, splits long words and ellipsises overflow', () => {
    expect(wrapLines('Data Science 101')).toEqual(['Data Science 101']);
    expect(wrapLines('Advanced Machine Learning Operations')).toEqual(['Advanced Machine', 'Learning', 'Operations']);
    expect(wrapLines('Pneumonoultramicroscopicsilicovolcanoconiosis')).toEqual([
      'Pneumonoultramicro',
      'scopicsilicovolcan',
      'oconiosis',
    ]);
    const long = wrapLines('one two three four five six seven eight nine ten eleven twelve thirteen fourteen');
    expect(long).toHaveLength(4);
    expect(long[3]).toMatch(/…$/);
    expect(long.every((line) => [...line].length <= 18)).toBe(true);
  });

  it('drops characters XML forbids', () => {
    const svg = renderBadgeSvg({ name: 'Bad\u0000\u0001 name\uFFFF', issuerName: 'I\u0008', brandColor: '#abc' });
    expect(xmlProblems(svg)).toEqual([]);
    expect(svg).toContain('Bad name');
    expect(svg).toContain('fill="#abc"');
  });

  it.each([
    ['#e67e22', '#000000'],
    ['#00aaff', '#000000'],
    ['#808080', '#000000'],
    ['#ffff00', '#000000'],
    ['#1f5fbf', '#ffffff'],
    ['#123456', '#ffffff'],
  ])('writes the badge text on %s in %s, whichever has the higher contrast', (brand, ink) => {
    const svg = renderBadgeSvg({ name: 'N', issuerName: 'I', brandColor: brand });
    expect(svg).toContain(`fill="${brand}"`);
    expect(svg).toContain(`font-weight="700" fill="${ink}"`);
  });

  it.each([
    [undefined, false, 'ld+json'],
    [undefined, true, 'ld+json'],
    ['', false, 'ld+json'],
    ['*/*', true, 'ld+json'],
    ['application/json', true, 'json'],
    ['application/json;q=0.9, application/ld+json;q=0.1', true, 'ld+json'],
    ['application/ld+json;q=0, application/json', true, 'json'],
    ['image/png', true, 'ld+json'],
    ['text/html', true, 'html'],
    ['text/html', false, 'ld+json'],
    ['TEXT/HTML;q=0.9, application/json;q=0.8', true, 'html'],
    ['text/html, application/ld+json', true, 'ld+json'],
    ['text/html;q=0.5, */*', true, 'ld+json'],
    ['text/*, application/json;q=0.5', true, 'html'],
    ['garbage, ;;;', true, 'ld+json'],
  ] as const)('negotiates Accept %j (html %s) as %s', (accept, html, expected) => {
    expect(negotiate(accept, { html })).toBe(expected);
  });
});
