import { afterAll, describe, expect, it } from 'vitest';
import { type CanaryResult, canarySummary, runCanary } from '../scripts/reliability/canary.js';
import { writeReport } from '../scripts/reliability/lib/report.js';
import { canaryNeedles, scanBytes } from '../scripts/reliability/lib/scan.js';
import { dialects } from './helpers.js';

/** T10: a mixed-case canary email through every channel, then searched for everywhere it could have gone. */
const results: CanaryResult[] = [];

afterAll(() => {
  if (results.length > 0) writeReport('canary', { results });
});

describe('the canary search', () => {
  it('finds the email in any case, URL-encoded, JSON-escaped, truncated, base64 and hex', () => {
    const unique = '0f7e9c1a-2b3c-4d5e-8f90-a1b2c3d4e5f6';
    const email = `Canary.${unique}@Example.Test`;
    const needles = canaryNeedles(email, unique);
    const forms = (text: string | Buffer) => scanBytes('t', text, needles).hits.map((h) => h.form);
    expect(forms(`x ${email.toUpperCase()} y`)).toContain('plain');
    expect(forms(`q=${encodeURIComponent(email.toLowerCase())}`)).toContain('url-encoded');
    expect(forms(JSON.stringify({ e: email }).replace('@', '\\u0040'))).toContain('json-escaped');
    expect(forms(`Canary.${unique}@@broken`)).toEqual(['unique part']);
    expect(forms(Buffer.from(email).toString('base64'))).toContain('base64 (as sent)');
    expect(forms(Buffer.from(email.toLowerCase()).toString('hex'))).toContain('hex (lower-case)');
    expect(forms(Buffer.from(`\u0000\u0001${email}\u0000`, 'latin1'))).toContain('plain');
    expect(forms('nothing here')).toEqual([]);
  });
});

describe.each(dialects)('the email canary on %s', (dialect) => {
  it('leaves no trace of the email in the database, dumps, logs, responses or webhooks', async () => {
    const result = await runCanary({ dialect });
    results.push(result);
    process.stdout.write(`${canarySummary(result)}\n`);
    expect(result.problems).toEqual([]);
    expect(result.places.filter((p) => p.hits.length > 0)).toEqual([]);
    expect(result.hits).toBe(0);
    expect(result.positiveControl.found.length).toBeGreaterThan(0);
    const scanned = result.places.map((p) => p.place).join('\n');
    expect(scanned).toMatch(/app log/);
    expect(scanned).toMatch(/HTTP responses/);
    expect(scanned).toMatch(/webhook payloads/);
    expect(scanned).toMatch(dialect === 'sqlite' ? /reliability\.db-wal/ : /statement log/);
  }, 120_000);
});
