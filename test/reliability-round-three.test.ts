import { describe, expect, it } from 'vitest';
import { type RoundThreeResult, runRoundThree } from '../scripts/reliability/round-three.js';
import { ENDORSEMENT_PENDING_MAX } from '../src/core/endorsement-limits.js';
import { TX_CODE_ATTEMPTS } from '../src/modules/wallet/wallet.terms.js';

describe('reliability: the round-three attack inputs (issue 48) against a running server', () => {
  it('the JSON-LD and LCW bombs are refused before work, tx_code guesses compare exactly 5, an endorsement flood stays pending and capped, on every engine', async () => {
    const report = await runRoundThree({
      full: false,
      postgresUrl: process.env.TEST_DATABASE_URL ?? null,
      log: () => {},
    });
    expect(report.checks.filter((c) => !c.pass)).toEqual([]);
    const engines = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
    expect(Object.keys(report.figures).sort()).toEqual([...engines].sort());
    for (const engine of engines) {
      const r = report.figures[engine] as RoundThreeResult;
      expect(r.verifyBomb).toMatchObject({
        vocab: 400,
        vocabIssue: 'inlineContext',
        bare: 400,
        bareIssue: 'arrayElements',
      });
      expect(r.lcwBomb).toMatchObject({
        oversized: 413,
        numbers: 400,
        numbersIssue: 'arrayElements',
        attemptsSpent: 0,
      });
      expect(r.txCodes).toMatchObject({ compared: TX_CODE_ATTEMPTS, failures: TX_CODE_ATTEMPTS, rightAfter: 400 });
      expect(r.endorsements).toMatchObject({ pending: ENDORSEMENT_PENDING_MAX, embedded: 0, longClaim: 400 });
    }
  }, 300_000);
});
