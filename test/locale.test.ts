import { describe, expect, it } from 'vitest';
import {
  acceptedLanguages,
  formatDate,
  formatNumber,
  lookupLanguage,
  negotiateLanguage,
  supportedLanguage,
  textLanguages,
} from '../src/core/locale.js';

describe('language negotiation (issue 45 §2)', () => {
  it('honours Accept-Language q-values, not the order written', () => {
    expect(acceptedLanguages('en;q=0.3, de;q=0.9, fr;q=0.5')).toEqual(['de', 'fr', 'en']);
    expect(negotiateLanguage({ acceptLanguage: 'en;q=0.3, de;q=0.9, fr;q=0.5' })).toBe('de');
    expect(negotiateLanguage({ acceptLanguage: 'nl;q=0.1, es' })).toBe('es');
  });

  it('treats q=0 as "not this one"', () => {
    expect(negotiateLanguage({ acceptLanguage: 'fr;q=0, de;q=0.2', credential: 'es' })).toBe('de');
    expect(negotiateLanguage({ acceptLanguage: 'fr;q=0', credential: 'es' })).toBe('es');
  });

  it('falls back from a regional tag to its language, and past languages it has no words for', () => {
    expect(negotiateLanguage({ acceptLanguage: 'fr-CH, en;q=0.5' })).toBe('fr');
    expect(negotiateLanguage({ acceptLanguage: 'da, nl-BE;q=0.8, en;q=0.5' })).toBe('nl');
    expect(negotiateLanguage({ acceptLanguage: 'pt-BR, ja;q=0.9' })).toBe('en');
  });

  it('puts ?lang= first, then Accept-Language, the credential, the issuer, English', () => {
    const all = { query: 'es', acceptLanguage: 'de', credential: 'fr', issuer: 'nl' };
    expect(negotiateLanguage(all)).toBe('es');
    expect(negotiateLanguage({ ...all, query: undefined })).toBe('de');
    expect(negotiateLanguage({ ...all, query: undefined, acceptLanguage: undefined })).toBe('fr');
    expect(negotiateLanguage({ issuer: 'nl', credential: null })).toBe('nl');
    expect(negotiateLanguage({})).toBe('en');
    expect(negotiateLanguage({ query: 'de-AT' })).toBe('de');
  });

  it('chooses the tags for the badge text that fall to the page language, regional ones first', () => {
    const sources = { acceptLanguage: 'fr-CH, de;q=0.5', credential: 'fr-CA', issuer: 'nl' };
    expect(textLanguages(sources, 'fr')).toEqual(['fr-CH', 'fr-CA', 'fr']);
    expect(textLanguages(sources, 'nl')).toEqual(['nl']);
    expect(textLanguages({ query: ['de-AT', 'fr'], credential: '<b>' }, 'de')).toEqual(['de-AT', 'de']);
    expect(textLanguages({}, 'en')).toEqual(['en']);
  });

  it('ignores malformed and hostile values instead of refusing them', () => {
    for (const query of ['<script>alert(1)</script>', '"><img src=x>', '', 'x'.repeat(10_000), 'zz', '*', 12, {}]) {
      expect(negotiateLanguage({ query, acceptLanguage: 'fr' }), String(query)).toBe('fr');
    }
    expect(negotiateLanguage({ query: ['nl', 'de'] })).toBe('nl');
    expect(negotiateLanguage({ acceptLanguage: '*, <b>;q=0.9', credential: 'de' })).toBe('de');
    expect(negotiateLanguage({ acceptLanguage: `${'a-'.repeat(5000)}fr` })).toBe('en');
    expect(negotiateLanguage({ acceptLanguage: ['de;q=0.5', 'nl'] })).toBe('nl');
    expect(supportedLanguage('not a tag')).toBeNull();
    expect(lookupLanguage(['en-GB-oxendict', 'fr'])).toBe('en');
  });

  it('writes dates and numbers for the language', () => {
    const at = '2026-11-21T23:30:00.000Z';
    expect(formatDate('en', at)).toBe('21 November 2026');
    expect(formatDate('fr', at)).toBe('21 novembre 2026');
    expect(formatDate('de', at)).toBe('21. November 2026');
    expect(formatDate('es', at)).toBe('21 de noviembre de 2026');
    expect(formatDate('nl', at)).toBe('21 november 2026');
    expect(formatNumber('en', 1250.5)).toBe('1,250.5');
    expect(formatNumber('de', 1250.5)).toBe('1.250,5');
    expect(formatNumber('fr', 1250.5)).toBe('1\u202f250,5');
  });
});
