import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { Email, WebUrl } from '../src/core/schemas.js';
import { addServiceFormats } from '../src/core/validation.js';

const ajv = addServiceFormats(new Ajv());

describe('shared schemas', () => {
  it('takes web URLs with a host only', () => {
    const isWebUrl = ajv.compile(WebUrl);
    for (const url of [
      'https://a.example',
      'http://a.example:8080/x?y=1#z',
      'https://user@a.example/',
      'http://[::1]:8080/',
    ]) {
      expect(isWebUrl(url), url).toBe(true);
    }
    for (const url of [
      'https://',
      'https:///x',
      'http://:80/',
      'https://@/',
      'https://?x',
      'ftp://a.example',
      'javascript:alert(1)',
    ]) {
      expect(isWebUrl(url), url).toBe(false);
    }
  });

  it('takes emails with surrounding whitespace, which normalisation trims', () => {
    const isEmail = ajv.compile(Email);
    expect(isEmail(' ada@example.org\t')).toBe(true);
    expect(isEmail('Ada@Example.ORG')).toBe(true);
    for (const bad of ['ada', 'ada@', '@example.org', 'ada @example.org', '   ']) expect(isEmail(bad), bad).toBe(false);
  });
});
