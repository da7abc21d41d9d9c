import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../types.js';

/**
 * PostgreSQL: `accolade_issue_credential` (0056) writes a credential only while the definition still
 * reads as the app read it, comparing its slug and `expires_after_days`, the two inputs of a
 * credential the definition gives. 0063 added a third, `expires_after_months`; a replica that had
 * cached the definition before its validity changed in months kept issuing with the old expiry,
 * since the comparison could not see the change. The function now compares the months too and
 * answers the definition as it is, which the app then issues from. Everything else is 0056's, stated
 * whole (a migration stays what it was when it ran), with the same signature, so the previous
 * release's replicas, which send no months, see a mismatch only when the definition counts months.
 *
 * The conformance test in test/issuance-round-trips.test.ts holds this function and the SQLite path
 * of issuance.service.ts to the same outcomes (docs/decisions.md, "Issuance rules in two places").
 */
export function issueDefinitionMonthsMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`
        create or replace function accolade_issue_credential(
          p_definition jsonb,
          p_credential jsonb,
          p_period text,
          p_usage_stripe integer,
          p_audit jsonb,
          p_hash_before_seq text,
          p_hash_after_seq text,
          p_event text,
          p_delivery jsonb
        ) returns jsonb language plpgsql as $$
        declare
          v_issuer text := p_credential->>'issuer_id';
          v_key text := p_credential->>'completion_key';
          v_stripe integer := (p_audit->>'stripe')::integer;
          v_existing jsonb;
          v_definition definitions;
          v_id text;
          v_plan text;
          v_quota integer;
          v_used bigint;
          v_seq integer;
          v_prev text;
          v_hash text;
        begin
          select * into v_definition from definitions
            where issuer_id = v_issuer and id = p_credential->>'definition_id';
          if not found or v_definition.status = 'archived'
            or v_definition.slug is distinct from p_definition->>'slug'
            or v_definition.expires_after_days is distinct from (p_definition->>'expires_after_days')::integer
            or v_definition.expires_after_months is distinct from (p_definition->>'expires_after_months')::integer then
            v_existing := accolade_credential_by_key(v_issuer, v_key);
            if v_existing is not null then
              return jsonb_build_object('existing', v_existing);
            end if;
            return jsonb_build_object('definition', case when v_definition.id is not null then to_jsonb(v_definition) end);
          end if;

          insert into credentials select * from jsonb_populate_record(null::credentials, p_credential)
            on conflict (issuer_id, completion_key) do nothing
            returning id into v_id;
          if v_id is null then
            v_existing := accolade_credential_by_key(v_issuer, v_key);
            return jsonb_build_object('existing', v_existing);
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
