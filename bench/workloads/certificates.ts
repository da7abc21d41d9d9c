import { type Engine, freshBenchDatabase } from '../lib/harness.js';
import type { WorkloadResult } from '../lib/results.js';
import { seed } from '../lib/setup.js';

/** Names across the scripts the bundled fonts cover, so the rows draw what issue 44 §3 asks to print. */
const NAMES = ['Nguyễn Thị Thảo', 'Siân O’Brien', 'Ζωή Παπαδοπούλου', 'Юлия Иванова', 'Ada Lovelace'];

const sortedAt = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0;
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/**
 * Issue 44's bench rows, in process (a render is CPU in this process; nothing to gain from HTTP):
 * one CSV import of `zipSize` credentials with names, then
 * - certificates per second, first render: `renders` of them drawn one after another (the PDF,
 *   its fonts subset, the QR code, the signed credential embedded);
 * - the same certificates again: served from the content cache;
 * - the import batch's ZIP of all `zipSize` certificates, read as a client would (the stream
 *   consumed as it comes), with the process's peak RSS while it streams.
 *   BENCH_CERT_RENDERS (default 200), BENCH_CERT_ZIP (default 1,000)
 */
export async function certificateWorkloads(engine: Engine, postgresUrl: string | null): Promise<WorkloadResult[]> {
  const renders = Number(process.env.BENCH_CERT_RENDERS ?? '200');
  const zipSize = Number(process.env.BENCH_CERT_ZIP ?? '1000');
  const db = await freshBenchDatabase(engine, postgresUrl);
  const seeded = await seed(db.url);
  const { app, issuerId } = seeded;
  try {
    const rows = Array.from(
      { length: zipSize },
      (_, i) => `cert-${i}@bench.example,${NAMES[i % NAMES.length]} ${i},cert-${i}`,
    );
    const imported = await app.inject({
      method: 'POST',
      url: '/api/v1/ingest/csv',
      headers: { authorization: `Bearer ${seeded.key}` },
      payload: {
        csv: `email,name,completion_key\n${rows.join('\n')}\n`,
        defaults: { definitionId: seeded.definitionId },
      },
    });
    const report = imported.json() as { batchId: string; issued: number; rows: { credentialId: string }[] };
    if (imported.statusCode !== 200 || report.issued !== zipSize) {
      throw new Error(`bench: the import answered ${imported.statusCode} with ${report.issued} issued`);
    }
    const ids = report.rows.map((r) => r.credentialId);
    const certificates = app.services.certificates;

    const drawEach = async (some: string[]) => {
      const times: number[] = [];
      const started = process.hrtime.bigint();
      for (const id of some) {
        const t0 = process.hrtime.bigint();
        await certificates.pdf(issuerId, id);
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      return { seconds: Number(process.hrtime.bigint() - started) / 1e9, times, rss: process.memoryUsage().rss };
    };
    const sample = ids.slice(0, Math.min(renders, ids.length));
    const first = await drawEach(sample);
    const cached = await drawEach(sample);

    // The ZIP: the rest of the batch renders for the first time while it streams.
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    let bytes = 0;
    const zipStart = process.hrtime.bigint();
    const zip = await certificates.batchZip(issuerId, report.batchId);
    for await (const chunk of zip) {
      bytes += (chunk as Buffer).length;
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    const zipSeconds = Number(process.hrtime.bigint() - zipStart) / 1e9;

    return [
      {
        workload: 'Certificates per second, first render (PDF/A-3, embedded credential, QR)',
        rps: Math.round(sample.length / first.seconds),
        p50Ms: Math.round(sortedAt(first.times, 0.5)),
        p99Ms: Math.round(sortedAt(first.times, 0.99)),
        rssMb: mb(first.rss),
        notes: `${sample.length} credentials one after another, through certificates.pdf (the record, design, signed credential and the render)`,
      },
      {
        workload: 'Certificates per second, cached (a re-download)',
        rps: Math.round(sample.length / cached.seconds),
        p50Ms: Number(sortedAt(cached.times, 0.5).toFixed(1)),
        p99Ms: Number(sortedAt(cached.times, 0.99).toFixed(1)),
        rssMb: mb(cached.rss),
        notes: 'the same credentials again: the record and design are read, the PDF comes from the content cache',
      },
      {
        workload: `ZIP of an import batch of ${zipSize.toLocaleString('en')} certificates (streamed)`,
        rps: Math.round(zipSize / zipSeconds),
        p99Ms: Math.round(zipSeconds * 1000),
        rssMb: mb(peak),
        notes: `${sample.length} of them cached, the rest rendered as the stream is read; ${mb(bytes)} MB of ZIP; RSS ${mb(rssBefore)} MB before, ${mb(peak)} MB at its peak; rps = certificates per second, p99 = the whole ZIP`,
      },
    ];
  } finally {
    await seeded.close();
    await db.drop();
  }
}
