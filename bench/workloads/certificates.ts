import { type Engine, freshBenchDatabase, rssMb, startServer } from '../lib/harness.js';
import type { WorkloadResult } from '../lib/results.js';
import { seed } from '../lib/setup.js';

/** Names across the scripts the bundled fonts cover, so the rows draw what issue 44 §3 asks to print. */
const NAMES = ['Nguyễn Thị Thảo', 'Siân O’Brien', 'Ζωή Παπαδοπούλου', 'Юлия Иванова', 'Ada Lovelace'];
/** The project's server memory target (docs/performance.md), held against every certificate row's peak. */
const RSS_TARGET_MB = 250;

const sortedAt = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0;
const round = (mb: number) => Math.round(mb);

/** The server's RSS read from /proc every 100 ms while `phase` runs: before, and the peak. */
async function sampled<T>(pid: number, phase: () => Promise<T>): Promise<{ result: T; before: number; peak: number }> {
  const before = rssMb(pid);
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 100);
  try {
    const result = await phase();
    return { result, before, peak: Math.max(peak, rssMb(pid)) };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Issue 44's bench rows, against the built server in its own process with `npm start`'s heap flags
 * (the memory is the server's, read from /proc), over HTTP:
 * one CSV import of `zipSize` credentials with names (in process, before the server starts), then
 * - certificates per second, first render: `renders` of them, GET /credentials/{id}/certificate.pdf
 *   from `clients` clients at once (the PDF, its fonts subset, the QR code, the signed credential);
 * - the same certificates again: served from the content cache;
 * - the import batch's ZIP of all `zipSize` certificates, read as a client would (the stream
 *   consumed as it comes), with the server's peak RSS while it streams.
 *   BENCH_CERT_RENDERS (default 200), BENCH_CERT_ZIP (default 1,000), BENCH_CERT_CLIENTS (default 8)
 */
export async function certificateWorkloads(engine: Engine, postgresUrl: string | null): Promise<WorkloadResult[]> {
  const renders = Number(process.env.BENCH_CERT_RENDERS ?? '200');
  const zipSize = Number(process.env.BENCH_CERT_ZIP ?? '1000');
  const clients = Number(process.env.BENCH_CERT_CLIENTS ?? '8');
  const db = await freshBenchDatabase(engine, postgresUrl);
  try {
    const seeded = await seed(db.url);
    const { key } = seeded;
    let batchId: string;
    let ids: string[];
    try {
      const rows = Array.from(
        { length: zipSize },
        (_, i) => `cert-${i}@bench.example,${NAMES[i % NAMES.length]} ${i},cert-${i}`,
      );
      const imported = await seeded.app.inject({
        method: 'POST',
        url: '/api/v1/ingest/csv',
        headers: { authorization: `Bearer ${key}` },
        payload: {
          csv: `email,name,completion_key\n${rows.join('\n')}\n`,
          defaults: { definitionId: seeded.definitionId },
        },
      });
      const report = imported.json() as { batchId: string; issued: number; rows: { credentialId: string }[] };
      if (imported.statusCode !== 200 || report.issued !== zipSize) {
        throw new Error(`bench: the import answered ${imported.statusCode} with ${report.issued} issued`);
      }
      batchId = report.batchId;
      ids = report.rows.map((r) => r.credentialId);
    } finally {
      await seeded.close();
    }

    const server = await startServer({ DATABASE_URL: db.url, WEBHOOK_DISPATCH: 'off' });
    try {
      const headers = { authorization: `Bearer ${key}` };
      const download = async (id: string): Promise<number> => {
        const t0 = performance.now();
        const res = await fetch(`${server.url}/api/v1/credentials/${id}/certificate.pdf`, { headers });
        const body = Buffer.from(await res.arrayBuffer());
        if (res.status !== 200 || body.subarray(0, 5).toString('latin1') !== '%PDF-') {
          throw new Error(`bench: certificate ${id} answered ${res.status}`);
        }
        return performance.now() - t0;
      };
      /** `some` drawn by `clients` clients at once, each taking the next id when it is done. */
      const drawAll = async (some: string[]) => {
        const times: number[] = [];
        let next = 0;
        const started = performance.now();
        await Promise.all(
          Array.from({ length: clients }, async () => {
            for (let i = next++; i < some.length; i = next++) times.push(await download(some[i] as string));
          }),
        );
        return { seconds: (performance.now() - started) / 1000, times };
      };
      const sample = ids.slice(0, Math.min(renders, ids.length));
      const first = await sampled(server.pid, () => drawAll(sample));
      const cached = await sampled(server.pid, () => drawAll(sample));

      // The ZIP: the rest of the batch renders for the first time while it streams.
      const zip = await sampled(server.pid, async () => {
        const started = performance.now();
        const res = await fetch(`${server.url}/api/v1/ingest/imports/${batchId}/certificates.zip`, { headers });
        if (res.status !== 200 || !res.body) throw new Error(`bench: the ZIP answered ${res.status}`);
        let bytes = 0;
        for await (const chunk of res.body) bytes += (chunk as Uint8Array).length;
        return { seconds: (performance.now() - started) / 1000, bytes };
      });

      const peak = Math.max(first.peak, cached.peak, zip.peak);
      const rssNote = (s: { before: number; peak: number }) =>
        `server RSS ${round(s.before)} MB before, ${round(s.peak)} MB at its peak`;
      return [
        {
          workload: 'Certificates per second, first render (PDF/A-3, embedded credential, QR)',
          rps: Math.round(sample.length / first.result.seconds),
          p50Ms: Math.round(sortedAt(first.result.times, 0.5)),
          p99Ms: Math.round(sortedAt(first.result.times, 0.99)),
          rssMb: round(first.peak),
          notes: `${sample.length} credentials over HTTP, ${clients} clients at once (the record, design, signed credential and the render); ${rssNote(first)}`,
        },
        {
          workload: 'Certificates per second, cached (a re-download)',
          rps: Math.round(sample.length / cached.result.seconds),
          p50Ms: Number(sortedAt(cached.result.times, 0.5).toFixed(1)),
          p99Ms: Number(sortedAt(cached.result.times, 0.99).toFixed(1)),
          rssMb: round(cached.peak),
          notes: `the same credentials again, ${clients} clients: the record and design are read, the PDF comes from the content cache; ${rssNote(cached)}`,
        },
        {
          workload: `ZIP of an import batch of ${zipSize.toLocaleString('en')} certificates (streamed)`,
          rps: Math.round(zipSize / zip.result.seconds),
          p99Ms: Math.round(zip.result.seconds * 1000),
          rssMb: round(zip.peak),
          notes: `${sample.length} of them cached, the rest rendered as the stream is read; ${round(zip.result.bytes / 2 ** 20)} MB of ZIP; ${rssNote(zip)}; rps = certificates per second, p99 = the whole ZIP`,
        },
        {
          workload: 'peak RSS of the certificate server',
          rps: 0,
          p99Ms: 0,
          rssMb: round(peak),
          target: `<= ${RSS_TARGET_MB} MB`,
          pass: peak <= RSS_TARGET_MB,
          notes: `the largest of the three rows' peaks (the built server with npm start's heap flags, its RSS read from /proc every 100 ms)`,
        },
      ];
    } finally {
      await server.stop();
    }
  } finally {
    await db.drop();
  }
}
