import { afterAll, describe, expect, it } from 'vitest';
import { writeReport } from '../scripts/reliability/lib/report.js';
import { type MatrixResult, matrixSummary, runTenantMatrix } from '../scripts/reliability/tenant-matrix.js';
import { dialects } from './helpers.js';

/** T6: A's key on B's resources answers exactly like a missing resource, and B's rows stay as they were. */
const results: MatrixResult[] = [];

afterAll(() => {
  if (results.length > 0) writeReport('tenant-matrix', { results });
});

describe.each(dialects)('the cross-tenant matrix on %s', (dialect) => {
  it('hides every resource of B from A under both key headers, and changes none of B’s rows', async () => {
    const result = await runTenantMatrix({ dialect });
    results.push(result);
    process.stdout.write(`${matrixSummary(result)}\n`);
    expect(result.operations).toEqual(
      expect.arrayContaining([
        'GET /api/v1/credentials/{id}',
        'POST /api/v1/credentials/{id}/revoke',
        'POST /api/v1/credentials',
        'GET /api/v1/credentials',
        'DELETE /api/v1/webhooks/{id}',
        'POST /api/v1/pathways/{id}/progress',
        'GET /v1/issuers/{slug}/assertions/{id}',
      ]),
    );
    expect(result.cells).toBeGreaterThan(100);
    expect(result.failures).toEqual([]);
    expect(result.listLeaks).toEqual([]);
    expect(result.bRows).toBeGreaterThan(20);
    expect(result.bRowsChanged).toEqual([]);
    expect(result.controls.run).toBeGreaterThan(0);
    expect(result.controls.failed).toEqual([]);
  }, 300_000);
});
