import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { type Engine, freshBenchDatabase } from '../lib/harness.js';
import type { WorkloadResult } from '../lib/results.js';
import { seed } from '../lib/setup.js';

const LTI = 'https://purl.imsglobal.org/spec/lti/claim/';
const LEARNER = 'http://purl.imsglobal.org/vocab/lis/v2/membership#Learner';
const INSTRUCTOR = 'http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor';
const PAGE = 100;
const CONCURRENCY = 8;

/**
 * A platform for the bench, written from the 1EdTech specifications as the test suite's simulator is
 * (test/lti-platform.support.ts), cut to what the bench drives: a JWKS (Security Framework 1.0 §6),
 * id_tokens signed as §5.1.1.3 asks, a token endpoint for the client-credentials grant (§4.1; the
 * tool's assertion is taken, not checked: the test suite checks it), AGS 2.0 results (§3.2) and
 * NRPS 2.0 memberships (§2), paged with Link rel="next".
 */
async function startBenchPlatform(learners: number) {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const kid = randomUUID();
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const users = Array.from({ length: learners }, (_, i) => ({
    user_id: `learner-${i}`,
    name: `Learner ${i}`,
    email: `learner-${i}@lms.bench.example`,
    roles: [LEARNER],
    status: 'Active',
  }));
  let base = '';
  const json = (response: ServerResponse, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(200, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
  const paged = (url: URL, items: unknown[]): { page: unknown[]; headers: Record<string, string> } => {
    const offset = Number(url.searchParams.get('offset') ?? '0');
    const next = new URL(url.href);
    next.searchParams.set('offset', String(offset + PAGE));
    return {
      page: items.slice(offset, offset + PAGE),
      headers: offset + PAGE < items.length ? { link: `<${next.href}>; rel="next"` } : {},
    };
  };
  const server: Server = createServer((request: IncomingMessage, response) => {
    request.resume();
    const url = new URL(request.url ?? '/', base);
    if (url.pathname === '/jwks') return json(response, { keys: [jwk] });
    if (url.pathname === '/token') {
      return json(response, { access_token: randomUUID(), token_type: 'Bearer', expires_in: 3600 });
    }
    if (url.pathname === '/lineitem/results') {
      const results = users.map((u) => ({ userId: u.user_id, resultScore: 90, resultMaximum: 100 }));
      const { page, headers } = paged(url, results);
      return json(response, page, { ...headers, 'content-type': 'application/vnd.ims.lis.v2.resultcontainer+json' });
    }
    if (url.pathname === '/memberships') {
      const { page, headers } = paged(url, users);
      return json(
        response,
        { id: url.href, context: { id: 'course-1' }, members: page },
        { ...headers, 'content-type': 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json' },
      );
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer: base,
    clientId: 'bench-client',
    deploymentId: 'bench-deployment',
    idToken: (nonce: string, claims: Record<string, unknown>) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        nonce,
        [`${LTI}version`]: '1.3.0',
        [`${LTI}deployment_id`]: 'bench-deployment',
        [`${LTI}context`]: { id: 'course-1', title: 'Bench 101' },
        'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice': {
          context_memberships_url: `${base}/memberships`,
          service_versions: ['2.0'],
        },
        ...claims,
      })
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
        .setIssuer(base)
        .setAudience('bench-client')
        .setIssuedAt(now)
        .setExpirationTime(now + 300)
        .sign(privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type BenchPlatform = Awaited<ReturnType<typeof startBenchPlatform>>;

/** The browser's login then the form_post of the platform's id_token, in process: the launch page's status. */
async function launch(app: FastifyInstance, platform: BenchPlatform, claims: Record<string, unknown>) {
  const toolBase = app.core.config.publicBaseUrl;
  const login = await app.inject({
    method: 'POST',
    url: '/lti/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      iss: platform.issuer,
      login_hint: String(claims.sub),
      target_link_uri: `${toolBase}/lti/launch`,
      client_id: platform.clientId,
    }).toString(),
  });
  const location = new URL(String(login.headers.location));
  const cookie = String([login.headers['set-cookie']].flat()[0] ?? '').split(';')[0] ?? '';
  const token = await platform.idToken(location.searchParams.get('nonce') ?? '', claims);
  return app.inject({
    method: 'POST',
    url: '/lti/launch',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    payload: new URLSearchParams({ id_token: token, state: location.searchParams.get('state') ?? '' }).toString(),
  });
}

/** Places a badge by deep linking as an instructor; answers the placed link's id. */
async function place(app: FastifyInstance, platform: BenchPlatform, definitionId: string, rule: 'launch' | 'score') {
  const picker = await launch(app, platform, {
    sub: 'instructor',
    [`${LTI}message_type`]: 'LtiDeepLinkingRequest',
    [`${LTI}roles`]: [INSTRUCTOR],
    'https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings': {
      deep_link_return_url: `${platform.issuer}/return`,
      accept_types: ['ltiResourceLink'],
    },
  });
  const token = /name="token" value="([^"]+)"/.exec(picker.body)?.[1] ?? '';
  const done = await app.inject({
    method: 'POST',
    url: '/lti/deep-links',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token, definitionId, rule, minScore: '80' }).toString(),
  });
  const jwt = /name="JWT" value="([^"]+)"/.exec(done.body)?.[1] ?? '';
  const [item] = (decodeJwt(jwt)['https://purl.imsglobal.org/spec/lti-dl/claim/content_items'] ?? []) as {
    custom?: Record<string, string>;
  }[];
  const linkId = item?.custom?.accolade_link;
  if (!linkId) throw new Error('bench: the badge could not be placed');
  return linkId;
}

const learnerClaims = (sub: string, linkId: string, extra: Record<string, unknown> = {}) => ({
  sub,
  name: `Learner ${sub}`,
  email: `${sub}@lms.bench.example`,
  [`${LTI}message_type`]: 'LtiResourceLinkRequest',
  [`${LTI}roles`]: [LEARNER],
  [`${LTI}resource_link`]: { id: `rl-${linkId}` },
  [`${LTI}custom`]: { accolade_link: linkId },
  ...extra,
});

const sortedAt = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0;

/**
 * Issue 43's bench rows, in process as the backpack's are: launches per second under the launch
 * rule (the login, an id_token signed by the platform, its verification against the platform's
 * JWKS, a nonce, the award through the issuance path and the earned page; every learner new, so
 * every launch issues), CONCURRENCY at a time; and one score sync of a course of `learners` others (AGS
 * results and the NRPS roster, paged by 100, every learner at 90 % against a minimum of 80 %).
 *   BENCH_LTI_LAUNCHES (default 500), BENCH_LTI_LEARNERS (default 1,000)
 */
export async function ltiWorkloads(engine: Engine, postgresUrl: string | null): Promise<WorkloadResult[]> {
  const launches = Number(process.env.BENCH_LTI_LAUNCHES ?? '500');
  const learners = Number(process.env.BENCH_LTI_LEARNERS ?? '1000');
  const db = await freshBenchDatabase(engine, postgresUrl);
  const seeded = await seed(db.url, {
    WEBHOOK_ALLOW_PRIVATE: 'true',
    OPEN_RATE_LIMIT_PER_MINUTE: '100000000',
    LTI_SYNC_INTERVAL_MS: '3600000',
  });
  const { app } = seeded;
  const platform = await startBenchPlatform(learners);
  try {
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/lti/platforms',
      headers: { authorization: `Bearer ${seeded.key}` },
      payload: {
        name: 'Bench LMS',
        platformIssuer: platform.issuer,
        clientId: platform.clientId,
        deploymentId: platform.deploymentId,
        authLoginUrl: `${platform.issuer}/auth`,
        tokenUrl: `${platform.issuer}/token`,
        jwksUri: `${platform.issuer}/jwks`,
      },
    });
    if (created.statusCode !== 201) throw new Error(`bench: platform registration answered ${created.statusCode}`);
    const launchLink = await place(app, platform, seeded.definitionId, 'launch');
    const scoreLink = await place(app, platform, seeded.definitionId, 'score');

    const times: number[] = [];
    let next = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < launches; i = next++) {
          const t0 = process.hrtime.bigint();
          const res = await launch(app, platform, learnerClaims(`launcher-${i}`, launchLink));
          times.push(Number(process.hrtime.bigint() - t0) / 1e6);
          if (res.statusCode !== 200 || !res.body.includes('You earned')) {
            throw new Error(`bench: launch ${i} answered ${res.statusCode}`);
          }
        }
      }),
    );
    const launchSeconds = Number(process.hrtime.bigint() - started) / 1e9;

    // One learner's launch tells the tool the line item and the roster; then the course's sync.
    await launch(
      app,
      platform,
      learnerClaims('score-reader', scoreLink, {
        'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint': {
          scope: ['https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly'],
          lineitem: `${platform.issuer}/lineitem`,
        },
      }),
    );
    const syncStart = process.hrtime.bigint();
    const synced = await app.services.lti.service.syncDue();
    const syncMs = Number(process.hrtime.bigint() - syncStart) / 1e6;
    if (synced.awarded !== learners) {
      throw new Error(`bench: the sync awarded ${synced.awarded} of ${learners}`);
    }
    return [
      {
        workload: `LTI launches per second (award on launch, ${CONCURRENCY} at a time)`,
        rps: Math.round(launches / launchSeconds),
        p50Ms: Math.round(sortedAt(times, 0.5)),
        p99Ms: Math.round(sortedAt(times, 0.99)),
        notes: `${launches} learners' first launches: login, RS256 id_token verified against the platform's JWKS, nonce, issuance, earned page`,
      },
      {
        workload: `LTI score sync of ${learners.toLocaleString('en')} learners (AGS results + NRPS roster)`,
        rps: Math.round((synced.awarded / syncMs) * 1000),
        p99Ms: Math.round(syncMs),
        notes: `one syncDue pass: ${Math.ceil(learners / PAGE)} pages of results and of members, ${synced.awarded} awarded; rps = awards per second, p99 = the whole pass`,
      },
    ];
  } finally {
    await platform.close();
    await seeded.close();
    await db.drop();
  }
}
