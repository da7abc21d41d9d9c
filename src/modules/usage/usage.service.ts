import { isoNow, periodStart, quotaPeriod } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import type { Executor } from '../../db/database.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import { createUsageRepository, USAGE_STRIPES } from './usage.repository.js';

/** Plans, the monthly (UTC) issuance quota and premium-verification metering. */
export function createUsageService(core: Pick<Core, 'db' | 'clock'>, deps: { issuers: Pick<IssuerService, 'planOf'> }) {
  const planOf = (issuerId: string) => deps.issuers.planOf(issuerId);
  let nextStripe = 0;
  const stripe = () => {
    nextStripe = (nextStripe + 1) % USAGE_STRIPES;
    return nextStripe;
  };

  return {
    /**
     * Counts `count` new credentials against this month's quota inside the caller's transaction.
     * Throws quota_exceeded (402) when they do not fit; nothing is counted then.
     */
    async consumeIssuance(trx: Executor, issuerId: string, count = 1): Promise<void> {
      // Everything inside a transaction goes through `trx`: on SQLite another handle would wait for
      // the connection this transaction holds.
      const repo = createUsageRepository(trx);
      const plan = await repo.planOfIssuer(issuerId);
      if (!plan) throw errors.notFound('Issuer');
      const period = quotaPeriod(core.clock.now());
      if (plan.issuance_quota === null) {
        await repo.add(issuerId, period, stripe(), { issuance: count });
        return;
      }
      if (!(await repo.tryConsumeWithinQuota(issuerId, period, count, plan.issuance_quota))) {
        const { issuance } = await repo.totals(issuerId, period);
        throw errors.quotaExceeded(plan.code, plan.issuance_quota, issuance);
      }
    },

    /**
     * Where one issuance is counted, for a statement that counts it in the database: this month and
     * the counter stripe an unlimited plan adds to (a plan with a quota counts on stripe 0).
     */
    issuanceCounter(): { period: string; stripe: number } {
      return { period: quotaPeriod(core.clock.now()), stripe: stripe() };
    },

    /** What is left this month: `remaining` is null when the plan is unlimited. */
    async remainingIssuance(issuerId: string) {
      const plan = await planOf(issuerId);
      const { issuance } = await createUsageRepository(core.db).totals(issuerId, quotaPeriod(core.clock.now()));
      return {
        plan: plan.code,
        quota: plan.issuance_quota,
        used: issuance,
        remaining: plan.issuance_quota === null ? null : Math.max(0, plan.issuance_quota - issuance),
      };
    },

    /** Refuses premium verification on plans without it; meters it otherwise. */
    async meterPremiumVerification(issuerId: string): Promise<void> {
      const plan = await planOf(issuerId);
      if (plan.premium_verification !== 1) throw errors.premiumNotIncluded(plan.code);
      await createUsageRepository(core.db).add(issuerId, quotaPeriod(core.clock.now()), stripe(), {
        premiumVerification: 1,
      });
    },

    async summary(issuerId: string) {
      const plan = await planOf(issuerId);
      const period = quotaPeriod(core.clock.now());
      const totals = await createUsageRepository(core.db).totals(issuerId, period);
      return {
        planCode: plan.code,
        issuanceQuota: plan.issuance_quota,
        issuanceUsed: totals.issuance,
        issuanceRemaining: plan.issuance_quota === null ? null : Math.max(0, plan.issuance_quota - totals.issuance),
        premiumVerification: plan.premium_verification === 1,
        periodStart: periodStart(period),
        metering: { issuance: totals.issuance, premiumVerification: totals.premiumVerification },
        generatedAt: isoNow(core.clock),
      };
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
