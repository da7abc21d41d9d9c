import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { ConfigError } from '../src/config.js';
import { createDatabase } from '../src/db/database.js';
import { loadSubprocessors } from '../src/modules/trust/trust.service.js';
import { createTestApp, dialects, freshDatabase, type TestApp, testConfig } from './helpers.js';

const CATEGORIES = [
  'Encryption',
  'Data Isolation',
  'Access Control',
  'Audit',
  'Data Minimisation',
  'Secrets Management',
  'Observability',
];

const SUBPROCESSORS = [
  { name: 'Example Cloud', purpose: 'Hosting', location: 'Sydney, Australia', dataTypes: ['credential records'] },
  { name: 'Example Mail', purpose: 'Operator alerts', location: 'Australia', dataTypes: [] },
];

interface Control {
  id: string;
  category: string;
  title: string;
  description: string;
  evidence: string;
}

/** Repository paths named in an evidence string ("src/...ts", "test/...ts", "README.md"). */
function evidencePaths(evidence: string): string[] {
  return [...evidence.matchAll(/(?:^|[\s(,;:])((?:src|test|docs)\/[\w./-]+\.\w+|README\.md)/g)].map((m) =>
    (m[1] ?? '').replace(/\.$/, ''),
  );
}

describe.each(dialects)('trust controls on %s', (dialect) => {
  const dir = mkdtempSync(join(tmpdir(), 'accolade-trust-'));
  let t: TestApp;
  let configured: TestApp;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    const file = join(dir, 'subprocessors.json');
    writeFileSync(file, JSON.stringify(SUBPROCESSORS));
    configured = await createTestApp(dialect, {
      env: { TRUST_SUBPROCESSORS_FILE: file, DATA_RESIDENCY: 'Australia (Sydney), single region' },
    });
  });
  afterAll(async () => {
    await t.close();
    await configured.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is open and lists controls in exactly the seven categories, with computed counts', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/trust/controls' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { controls: Control[]; controlCount: number; categoryCount: number };
    expect(body.controlCount).toBe(body.controls.length);
    expect(body.controls.length).toBeGreaterThanOrEqual(CATEGORIES.length);
    const runs = body.controls.map((c) => c.category).filter((c, i, all) => c !== all[i - 1]);
    expect(runs, 'grouped by category, in the order of the interface').toEqual(CATEGORIES);
    expect(body.categoryCount).toBe(7);
    expect(new Set(body.controls.map((c) => c.id)).size).toBe(body.controls.length);
    for (const control of body.controls) {
      expect(control.title.length).toBeGreaterThan(0);
      expect(control.description.length).toBeGreaterThan(40);
    }
  });

  it('points every control at code and tests that exist in this repository', async () => {
    const { controls } = (await t.app.inject({ method: 'GET', url: '/api/v1/trust/controls' })).json() as {
      controls: Control[];
    };
    for (const control of controls) {
      const paths = evidencePaths(control.evidence);
      expect(
        paths.some((p) => p.startsWith('src/')),
        `${control.id} names no code`,
      ).toBe(true);
      expect(
        paths.some((p) => p.startsWith('test/')),
        `${control.id} names no test`,
      ).toBe(true);
      for (const path of paths) expect(existsSync(path), `${control.id}: ${path} does not exist`).toBe(true);
    }
  });

  it('publishes the service objectives, with the default data residency', async () => {
    const { slo } = (await t.app.inject({ method: 'GET', url: '/api/v1/trust/controls' })).json();
    expect(slo).toEqual({
      availabilityTarget: '99.5%',
      rtoTarget: '4h',
      rpoTarget: '24h',
      dataResidency: 'Australia, single region',
      lastReviewed: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
  });

  it('lists no subprocessors unless the operator names a file', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/trust/controls' });
    expect(res.json().subprocessors).toEqual([]);
  });

  it("publishes the operator's subprocessors and data residency", async () => {
    const res = await configured.app.inject({ method: 'GET', url: '/api/v1/trust/controls' });
    expect(res.json().subprocessors).toEqual(SUBPROCESSORS);
    expect(res.json().slo.dataResidency).toBe('Australia (Sydney), single region');
  });

  it('refuses a missing, malformed or misshapen subprocessor file with a message naming the variable', () => {
    const cases: [string, string | null, RegExp][] = [
      ['missing.json', null, /cannot read .*missing\.json \(ENOENT\)/],
      ['broken.json', '[{"name": ', /is not valid JSON/],
      ['object.json', '{"name": "x"}', /at \/: Expected array/],
      ['shape.json', JSON.stringify([{ name: 'x', purpose: 'p', location: 'l' }]), /at \/0\/dataTypes/],
      ['extra.json', JSON.stringify([{ ...SUBPROCESSORS[0], region: 'AU' }]), /at \/0\/region/],
    ];
    for (const [name, content, message] of cases) {
      const file = join(dir, name);
      if (content !== null) writeFileSync(file, content);
      let caught: unknown;
      try {
        loadSubprocessors(file);
      } catch (err) {
        caught = err;
      }
      expect(caught, name).toBeInstanceOf(ConfigError);
      expect((caught as Error).message).toContain('TRUST_SUBPROCESSORS_FILE');
      expect((caught as Error).message).toMatch(message);
    }
  });

  it('stops start-up when the subprocessor file is bad', async () => {
    const file = join(dir, 'startup.json');
    writeFileSync(file, 'not json');
    const testDb = await freshDatabase(dialect);
    const config = testConfig(testDb.url, { TRUST_SUBPROCESSORS_FILE: file });
    const database = createDatabase(config.database);
    try {
      await expect(buildApp({ config, database, logger: false })).rejects.toThrow(
        /Invalid configuration:[\s\S]*TRUST_SUBPROCESSORS_FILE/,
      );
    } finally {
      await database.close();
      await testDb.drop();
    }
  });
});
