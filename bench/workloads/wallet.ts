import { base64url, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { type Engine, eachOnce, freshBenchDatabase, startServer } from '../lib/harness.js';
import type { WorkloadResult } from '../lib/results.js';
import { seed } from '../lib/setup.js';

/** Offers redeemed in the measured run, each by its own holder key. */
const REDEMPTIONS = 300;
/** Wallets redeeming at once: the credential endpoint signs, which is CPU work on 2 cores. */
const WALLETS = 4;
const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

type Doc = Record<string, unknown>;

/** A string member of a protocol document; anything else is a broken answer. */
function text(doc: unknown, ...path: string[]): string {
  const value = path.reduce<unknown>((at, key) => (at as Doc | undefined)?.[key], doc);
  if (typeof value !== 'string') throw new Error(`no ${path.join('.')} in the answer`);
  return value;
}

async function json(res: Response): Promise<Doc> {
  if (!res.ok) throw new Error(`${res.url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Doc;
}

/** A did:jwk holder (ES256), made before the clock starts: key generation is the wallet's cost. */
async function holder() {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const { kty, crv, x, y } = await exportJWK(publicKey);
  const did = `did:jwk:${base64url.encode(JSON.stringify({ kty, crv, x, y }))}`;
  return { kid: `${did}#0`, privateKey };
}

/**
 * One wallet's redemption, as OpenID4VCI 1.0 runs it after the wallet has read the QR code: the
 * offer by reference, the token for the pre-authorized code, a nonce, and the credential request
 * with a jwt proof, answered with the holder-bound Data Integrity credential (signed then).
 * The metadata is read once per run, as a wallet caches it.
 */
interface Endpoints {
  issuer: string;
  token: string;
  nonce: string;
  credential: string;
}

async function redeem(offerUri: string, endpoints: Endpoints, wallet: Awaited<ReturnType<typeof holder>>) {
  const reference = new URL(offerUri).searchParams.get('credential_offer_uri') ?? '';
  const code = text(await json(await fetch(reference)), 'grants', PRE_AUTH, 'pre-authorized_code');
  const token = await json(
    await fetch(endpoints.token, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: PRE_AUTH, 'pre-authorized_code': code }),
    }),
  );
  const nonce = text(await json(await fetch(endpoints.nonce, { method: 'POST' })), 'c_nonce');
  const proof = await new SignJWT({ nonce })
    .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', kid: wallet.kid })
    .setAudience(endpoints.issuer)
    .setIssuedAt()
    .sign(wallet.privateKey);
  const issued = await json(
    await fetch(endpoints.credential, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${text(token, 'access_token')}` },
      body: JSON.stringify({ credential_configuration_id: 'OpenBadgeCredential_ldp_vc', proofs: { jwt: [proof] } }),
    }),
  );
  const credential = (issued.credentials as Doc[] | undefined)?.[0]?.credential as Doc | undefined;
  if (credential?.proof === undefined) throw new Error('the credential endpoint answered no signed credential');
}

/**
 * OpenID4VCI redemptions per second (issue 38): offers made through the API beforehand, then
 * WALLETS concurrent wallets each redeeming offers end to end, signing included.
 */
export async function walletWorkloads(engine: Engine, postgresUrl: string | null): Promise<WorkloadResult[]> {
  const db = await freshBenchDatabase(engine, postgresUrl);
  const seeded = await seed(db.url);
  const server = await startServer({
    DATABASE_URL: db.url,
    WEBHOOK_DISPATCH: 'off',
    OPEN_RATE_LIMIT_PER_MINUTE: '100000000',
  });
  try {
    const offers: string[] = [];
    for (let i = 0; i < REDEMPTIONS; i++) {
      const outcome = await seeded.app.services.issuance.issue(seeded.issuerId, 'bench', {
        definitionId: seeded.definitionId,
        recipientEmail: `wallet-${i}@bench.example`,
        completionKey: `wallet-${i}`,
        source: 'api',
      });
      const made = await json(
        await fetch(`${server.url}/api/v1/credentials/${outcome.row.id}/offers`, {
          method: 'POST',
          headers: { authorization: `Bearer ${seeded.key}`, 'content-type': 'application/json' },
          body: '{}',
        }),
      );
      offers.push(text(made, 'offer'));
    }
    const issuerPath = `/v1/issuers/${seeded.issuerSlug}`;
    const metadata = await json(await fetch(`${server.url}/.well-known/openid-credential-issuer${issuerPath}`));
    const as = await json(await fetch(`${server.url}/.well-known/oauth-authorization-server${issuerPath}`));
    const endpoints: Endpoints = {
      issuer: text(metadata, 'credential_issuer'),
      token: text(as, 'token_endpoint'),
      nonce: text(metadata, 'nonce_endpoint'),
      credential: text(metadata, 'credential_endpoint'),
    };
    const wallets = await Promise.all(offers.map(() => holder()));
    let firstFailure = '';
    const { seconds, p50Ms, p99Ms, failures } = await eachOnce(offers.length, WALLETS, async (i) => {
      try {
        await redeem(offers[i] as string, endpoints, wallets[i] as Awaited<ReturnType<typeof holder>>);
        return true;
      } catch (error) {
        firstFailure ||= String(error).slice(0, 300);
        return false;
      }
    });
    return [
      {
        workload: 'OpenID4VCI redemption (offer, token, nonce, signed credential)',
        rps: Math.round((offers.length - failures) / seconds),
        p50Ms,
        p99Ms,
        rssMb: server.peakRssMb(),
        pass: failures === 0,
        notes: `${REDEMPTIONS} offers redeemed once each by ${WALLETS} concurrent wallets, four requests a redemption, ldp_vc (eddsa-rdfc-2022) bound to a did:jwk; the wallets' ES256 proofs are signed on the same host; failures ${failures}${firstFailure ? ` (first: ${firstFailure})` : ''}`,
      },
    ];
  } finally {
    await server.stop();
    await seeded.close();
    await db.drop();
  }
}
