import { type Engine, eachOnce, freshBenchDatabase, loadSpread, startServer, WARM_UP_SECONDS } from '../lib/harness.js';
import { ratio, type WorkloadResult } from '../lib/results.js';
import { type Seeded, seed } from '../lib/setup.js';
import { CSV_ROWS, csvImport, median, RUNS } from './ingest.js';

const CONNECTIONS = 32;
/** Credentials fetched once each as OB 3.0 for the first time (signing included). */
const FIRST_FETCHES = 400;
/** Concurrent first fetches: signing is CPU work, so more clients than cores only queue. */
const FIRST_FETCH_CLIENTS = 4;

async function issueMany(seeded: Seeded, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const outcome = await seeded.app.services.issuance.issue(seeded.issuerId, 'bench', {
      definitionId: seeded.definitionId,
      recipientEmail: `ob3-${i}@bench.example`,
      recipientName: `Learner Number${i}`,
      completionKey: `ob3-${i}`,
      source: 'api',
    });
    ids.push(outcome.row.id);
  }
  return ids;
}

/** Fetches every path once from `clients` loops; answers the rate, p50 and p99 in ms, and failures. */
async function fetchEachOnce(origin: string, paths: readonly string[], clients: number) {
  const run = await eachOnce(paths.length, clients, async (i) => {
    const res = await fetch(`${origin}${paths[i]}`, { headers: { accept: 'application/ld+json' } });
    await res.arrayBuffer();
    return res.status === 200;
  });
  return { rps: Math.round(paths.length / run.seconds), p50Ms: run.p50Ms, p99Ms: run.p99Ms, failures: run.failures };
}

/**
 * The OB 3.0 credential (issue 23): its first fetch, which signs (eddsa-rdfc-2022 and the VC-JWT)
 * and stores it, then warm fetches of the stored forms beside the OB 2.0 hosted assertion of the
 * same credentials in the same run.
 */
async function credentialFetches(engine: Engine, postgresUrl: string | null, seconds: number) {
  const db = await freshBenchDatabase(engine, postgresUrl);
  const seeded = await seed(db.url);
  const server = await startServer({
    DATABASE_URL: db.url,
    WEBHOOK_DISPATCH: 'off',
    OPEN_RATE_LIMIT_PER_MINUTE: '100000000',
  });
  try {
    const ids = await issueMany(seeded, FIRST_FETCHES);
    const ob3 = ids.map((id) => `/v1/issuers/${seeded.issuerSlug}/credentials/${id}`);
    const ob2 = ids.map((id) => `/v1/issuers/${seeded.issuerSlug}/assertions/${id}`);
    const first = await fetchEachOnce(server.url, ob3, FIRST_FETCH_CLIENTS);
    const gets = (paths: string[]) =>
      paths.map((path) => ({ method: 'GET', path, headers: { accept: 'application/ld+json' } }));
    // Each after WARM_UP_SECONDS of the same load, uncounted, as the verification phases are.
    const warmedUp = async (paths: string[]) => {
      const requests = gets(paths);
      await loadSpread({ url: server.url, connections: CONNECTIONS, duration: WARM_UP_SECONDS, requests });
      return loadSpread({ url: server.url, connections: CONNECTIONS, duration: seconds, requests });
    };
    const warm = await warmedUp(ob3);
    const assertion = await warmedUp(ob2);
    return { first, warm, assertion, rssMb: server.peakRssMb() };
  } finally {
    await server.stop();
    await seeded.close();
    await db.drop();
  }
}

/**
 * Before the import, OB 3.0 in use by the issuer: its signing key made, one credential signed (a
 * status position allocated) and status list 0 signed and stored.
 */
async function ob3InUse(seeded: Seeded, serverUrl: string): Promise<void> {
  const outcome = await seeded.app.services.issuance.issue(seeded.issuerId, 'bench', {
    definitionId: seeded.definitionId,
    recipientEmail: 'ob3-before@bench.example',
    completionKey: 'ob3-before',
    source: 'api',
  });
  for (const path of [`credentials/${outcome.row.id}`, 'status/0']) {
    const res = await fetch(`${serverUrl}/v1/issuers/${seeded.issuerSlug}/${path}`);
    if (res.status !== 200) throw new Error(`OB 3.0 ${path} answered ${res.status}`);
    await res.arrayBuffer();
  }
}

export async function ob3Workloads(
  engine: Engine,
  postgresUrl: string | null,
  seconds: number,
): Promise<WorkloadResult[]> {
  const fetches = await credentialFetches(engine, postgresUrl, seconds);
  const plain: Awaited<ReturnType<typeof csvImport>>[] = [];
  const inUse: Awaited<ReturnType<typeof csvImport>>[] = [];
  for (let run = 0; run < RUNS; run++) {
    plain.push(await csvImport(engine, postgresUrl));
    inUse.push(await csvImport(engine, postgresUrl, { before: ob3InUse }));
  }
  const plainRate = median(plain.map((i) => i.rate));
  const inUseRate = median(inUse.map((i) => i.rate));
  const allIssued = [...plain, ...inUse].every((i) => i.status === 200 && i.report.issued === CSV_ROWS);
  const { first, warm, assertion } = fetches;
  return [
    {
      workload: 'OB 3.0 credential, first fetch (signs and stores)',
      rps: first.rps,
      p50Ms: first.p50Ms,
      p99Ms: first.p99Ms,
      rssMb: fetches.rssMb,
      notes: `${FIRST_FETCHES} credentials fetched once each by ${FIRST_FETCH_CLIENTS} clients (eddsa-rdfc-2022 proof, VC-JWT, status position); non-200 ${first.failures}`,
    },
    {
      workload: 'OB 2.0 hosted assertion read',
      rps: assertion.rps,
      p50Ms: assertion.p50Ms,
      p99Ms: assertion.p99Ms,
      rssMb: fetches.rssMb,
      notes: `GET /v1/issuers/{slug}/assertions/{id} of the same ${FIRST_FETCHES} credentials, ${CONNECTIONS} connections; non-2xx ${assertion.non2xx}`,
    },
    {
      workload: 'OB 3.0 credential, warm fetch',
      rps: warm.rps,
      p50Ms: warm.p50Ms,
      p99Ms: warm.p99Ms,
      rssMb: fetches.rssMb,
      limit: { name: 'OB 2.0 hosted assertion read', rps: assertion.rps },
      ratio: ratio(warm.rps, assertion.rps),
      target: '>= 80 %',
      pass: warm.rps >= 0.8 * assertion.rps && warm.non2xx === 0 && warm.errors === 0,
      notes: `GET /v1/issuers/{slug}/credentials/{id} (JSON-LD) of the signed credentials, ${CONNECTIONS} connections; non-2xx ${warm.non2xx}, errors ${warm.errors}`,
    },
    {
      workload: `CSV import ${CSV_ROWS.toLocaleString('en')} rows, OB 3.0 in use (rows/s)`,
      rps: inUseRate,
      p99Ms: 0,
      rssMb: Math.max(...inUse.map((i) => i.peakRssMb)),
      limit: { name: 'CSV import, issuer without OB 3.0 state', rps: plainRate },
      ratio: ratio(inUseRate, plainRate),
      target: '>= 90 %',
      pass: allIssued && inUseRate >= 0.9 * plainRate,
      notes: `OB 3.0 cannot be switched off: it signs on first fetch, and import allocates no status position. So this compares an issuer whose key, status list 0 and one signed credential exist before the import with a fresh issuer that has none. Medians of ${RUNS} alternate runs each (rows/s, in use: ${inUse.map((i) => i.rate).join(', ')}; without: ${plain.map((i) => i.rate).join(', ')})`,
    },
  ];
}
