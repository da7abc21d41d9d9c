import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { LOOKUP_CHUNK } from '../../src/modules/backpack/backpack.repository.js';
import { type Engine, freshBenchDatabase } from '../lib/harness.js';
import type { WorkloadResult } from '../lib/results.js';
import { seed } from '../lib/setup.js';

/** The issue's sizes (issue 47 "Proof"); smaller ones only smoke-run the rows (BENCH_BACKPACK_*). */
export const BACKPACK_SIZES = { issuers: 10_000, credentials: 1_000 };
const PAGE = 200;
const EMAIL = 'earner@bench.example';
const SCOPE = 'https://purl.imsglobal.org/spec/ob/v3p0/scope/credential.readonly';

/** A sign-in link made as the service makes one (token hash stored, address sealed to the token). */
async function signInLink(app: FastifyInstance, email: string): Promise<string> {
  const { secrets } = app.services.backpack;
  const token = randomBytes(32).toString('base64url');
  const now = Date.now();
  await app.core.db
    .withTables<{
      earner_sign_in_links: {
        token_hash: string;
        email_hash: string;
        created_at: string;
        expires_at: string;
        used_at: string | null;
      };
    }>()
    .insertInto('earner_sign_in_links')
    .values({
      token_hash: createHash('sha256').update(token).digest('hex'),
      email_hash: secrets.emailHash(email),
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + 600_000).toISOString(),
      used_at: null,
    })
    .execute();
  return `${token}.${secrets.sealEmail(email, token)}`;
}

function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * The backpack's two costs that grow with the service (docs/decisions.md, "Earner accounts and the
 * backpack"): a sign-in's lookup across every issuer (10,000 issuers, the earner's one credential at
 * the middle one), and getCredentials for an earner with 1,000 credentials (five pages of 200, the
 * first pass signing each credential, the second reading the stored signatures).
 */
export async function backpackWorkloads(
  engine: Engine,
  postgresUrl: string | null,
  sizes: { issuers: number; credentials: number } = BACKPACK_SIZES,
): Promise<WorkloadResult[]> {
  const { issuers: ISSUERS, credentials: CREDENTIALS } = sizes;
  const db = await freshBenchDatabase(engine, postgresUrl);
  const seeded = await seed(db.url);
  const { app } = seeded;
  try {
    for (let i = 0; i < ISSUERS - 1; i++) {
      await app.services.issuers.createIssuer({
        name: `Bench issuer ${i}`,
        slug: `bench-${i}`,
        email: `bench-${i}@bench.example`,
        url: `https://bench-${i}.bench.example`,
        plan: 'enterprise',
      });
    }
    for (let i = 0; i < CREDENTIALS; i++) {
      await app.services.issuance.issue(seeded.issuerId, 'bench', {
        definitionId: seeded.definitionId,
        recipientEmail: EMAIL,
        completionKey: `backpack-${i}`,
        source: 'api',
      });
    }
    const lookups: number[] = [];
    for (let run = 0; run < 5; run++) {
      const link = await signInLink(app, EMAIL);
      const start = process.hrtime.bigint();
      const signedIn = await app.services.backpack.signIn(link);
      lookups.push(ms(start));
      if (!signedIn) throw new Error('bench sign-in failed');
    }
    const account = await app.services.backpack.authenticate(
      (await app.services.backpack.signIn(await signInLink(app, EMAIL)))?.token ?? null,
    );
    if (!account) throw new Error('bench session missing');
    const provider = await app.services.obapi.provider();
    const registered = await app.inject({
      method: 'POST',
      url: '/ims/ob/v3p0/oauth/register',
      payload: { client_name: 'Bench', redirect_uris: ['https://bench.example/callback'] },
    });
    const client = await provider.Client.find(registered.json().client_id);
    if (!client) throw new Error('bench client missing');
    const token = await new provider.AccessToken({
      accountId: account.accountId,
      client,
      gty: 'authorization_code',
      grantId: 'bench-grant',
      scope: SCOPE,
      aud: app.services.obapi.resource,
    }).save();
    const pass = async () => {
      const times: number[] = [];
      for (let offset = 0; offset < CREDENTIALS; offset += PAGE) {
        const start = process.hrtime.bigint();
        const res = await app.inject({
          method: 'GET',
          url: `/ims/ob/v3p0/credentials?limit=${PAGE}&offset=${offset}`,
          headers: { authorization: `Bearer ${token}` },
        });
        times.push(ms(start));
        if (res.statusCode !== 200) throw new Error(`getCredentials ${res.statusCode}`);
      }
      return times;
    };
    const cold = await pass();
    const warm = await pass();
    const sorted = (values: number[]) => [...values].sort((x, y) => x - y);
    const p = (values: number[], q: number) =>
      sorted(values)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0;
    return [
      {
        workload: `backpack sign-in lookup across ${ISSUERS.toLocaleString('en')} issuers`,
        rps: Math.round(1000 / p(lookups, 0.5)),
        p50Ms: Math.round(p(lookups, 0.5)),
        p99Ms: Math.round(p(lookups, 0.99)),
        notes: `${lookups.length} sign-ins of one address: ${ISSUERS} salted hashes, ${Math.ceil(ISSUERS / LOOKUP_CHUNK[engine])} index-probing statements of ${LOOKUP_CHUNK[engine]} pairs, ${CREDENTIALS} links`,
      },
      {
        workload: `getCredentials for an earner with ${CREDENTIALS.toLocaleString('en')} credentials (pages of ${PAGE})`,
        rps: Math.round(1000 / p(warm, 0.5)),
        p50Ms: Math.round(p(warm, 0.5)),
        p99Ms: Math.round(p(warm, 0.99)),
        notes: `stored signatures; the first pass, which signed each credential, took ${Math.round(cold.reduce((a, b) => a + b, 0))} ms for all ${Math.ceil(CREDENTIALS / PAGE)} pages`,
      },
    ];
  } finally {
    await seeded.close();
    await db.drop();
  }
}
