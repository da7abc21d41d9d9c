import { describe, expect, it } from 'vitest';
import { enginesFor } from '../scripts/reliability/load.harness.js';

describe('reliability engine selection', () => {
  const postgresUrl = 'postgres://postgres@127.0.0.1:5432/test';

  it('runs both engines when PostgreSQL answers, SQLite alone when it does not', () => {
    expect(enginesFor({ full: false, postgresUrl })).toEqual(['sqlite', 'postgres']);
    expect(enginesFor({ full: false, postgresUrl: null })).toEqual(['sqlite']);
  });

  it('keeps only the PostgreSQL legs with --postgres-only', () => {
    expect(enginesFor({ full: true, postgresUrl, postgresOnly: true })).toEqual(['postgres']);
    expect(() => enginesFor({ full: true, postgresUrl: null, postgresOnly: true })).toThrow(/PostgreSQL URL/);
  });
});
