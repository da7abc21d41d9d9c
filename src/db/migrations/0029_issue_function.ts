import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../types.js';

/**
 * PostgreSQL: one issuance's writes as one function, called as one autocommit statement
 * (credentials/issuance.postgres.ts), so the transaction costs a single round trip and the locks it
 * takes (the quota counter, the audit chain's head) are held for microseconds, not across several
 * round trips and the app's work between them. In the order `issuance.service.ts` writes on SQLite:
 * - the credential row, unless the completion key exists: then nothing else is written and the
 *   existing credential's id is returned (a concurrent duplicate waited for the first to commit);
 * - the quota: an unlimited plan adds one on the caller's counter stripe; a plan with a quota adds
 *   one on stripe 0 only when the month's total stays within it, else raises SQLSTATE AQ402 with
 *   the plan, quota and usage as JSON detail, which rolls the whole statement back;
 * - the audit record: the head upsert locks it (as `lockHeads` does), the record takes the next seq
 *   and its hash is sha256(prev_hash + canonical JSON), the JSON given in the two parts either side
 *   of seq (`recordJsonAroundSeq`), so the stored format is the application's to the byte;
 * - one pending webhook delivery per live subscription to the event, from the row the app built
 *   (`pendingDelivery`), each with its own id.
 * Rows come as JSON and are expanded to their table's row type, so the columns stay defined once.
 * SECURITY INVOKER (the default): it writes with the caller's grants and under the same triggers.
 * SQLite has one writer and in-process statements, so it keeps the app's transaction.
 */
export function issueFunctionMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`
        create function accolade_issue_credential(
          p_credential jsonb,
          p_period text,
          p_usage_stripe integer,
          p_audit jsonb,
          p_hash_before_seq text,
          p_hash_after_seq text,
          p_event text,
          p_delivery jsonb
        ) returns text language plpgsql as $$
        declare
          v_issuer text := p_credential->>'issuer_id';
          v_stripe integer := (p_audit->>'stripe')::integer;
          v_id text;
          v_plan text;
          v_quota integer;
          v_used bigint;
          v_seq integer;
          v_prev text;
          v_hash text;
        begin
          insert into credentials select * from jsonb_populate_record(null::credentials, p_credential)
            on conflict (issuer_id, completion_key) do nothing
            returning id into v_id;
          if v_id is null then
            select id into v_id from credentials
              where issuer_id = v_issuer and completion_key = p_credential->>'completion_key';
            return v_id;
          end if;

          select p.code, p.issuance_quota into v_plan, v_quota
            from plans p join issuers i on i.plan_code = p.code where i.id = v_issuer;
          if not found then
            raise exception 'issuer % not found', v_issuer using errcode = 'AQ404';
          end if;
          if v_quota is null then
            insert into usage_counters (issuer_id, period, stripe, issuance, premium_verification)
              values (v_issuer, p_period, p_usage_stripe, 1, 0)
              on conflict (issuer_id, period, stripe) do update set issuance = usage_counters.issuance + 1;
          else
            insert into usage_counters (issuer_id, period, stripe, issuance, premium_verification)
              values (v_issuer, p_period, 0, 0, 0)
              on conflict (issuer_id, period, stripe) do nothing;
            update usage_counters set issuance = issuance + 1
              where issuer_id = v_issuer and period = p_period and stripe = 0
                and issuance + 1 + (select coalesce(sum(o.issuance), 0) from usage_counters o
                  where o.issuer_id = v_issuer and o.period = p_period and o.stripe <> 0) <= v_quota;
            if not found then
              select coalesce(sum(issuance), 0) into v_used from usage_counters
                where issuer_id = v_issuer and period = p_period;
              raise exception 'quota_exceeded' using errcode = 'AQ402',
                detail = json_build_object('plan', v_plan, 'quota', v_quota, 'used', v_used)::text;
            end if;
          end if;

          insert into audit_heads (issuer_id, stripe, seq, hash) values (v_issuer, v_stripe, 0, '')
            on conflict (issuer_id, stripe) do update set seq = audit_heads.seq
            returning seq + 1, hash into v_seq, v_prev;
          v_hash := encode(sha256(convert_to(v_prev || p_hash_before_seq || v_seq || p_hash_after_seq, 'UTF8')), 'hex');
          insert into audit_log select * from jsonb_populate_record(null::audit_log,
            p_audit || jsonb_build_object('seq', v_seq, 'prev_hash', v_prev, 'hash', v_hash));
          update audit_heads set seq = v_seq, hash = v_hash where issuer_id = v_issuer and stripe = v_stripe;

          insert into webhook_deliveries
            select d.* from webhook_subscriptions s
            cross join lateral jsonb_populate_record(null::webhook_deliveries,
              p_delivery || jsonb_build_object('id', gen_random_uuid()::text, 'subscription_id', s.id)) d
            where s.issuer_id = v_issuer and s.deleted_at is null and s.events::jsonb ? p_event;
          return null;
        end $$
      `.execute(db);
    },
  };
}
