import { startSmtpServer } from '../../scripts/reliability/lib/smtp-receiver.js';
import type { Engine } from '../lib/harness.js';
import { ratio, type WorkloadResult } from '../lib/results.js';
import { CSV_ROWS, csvImport, median, RUNS } from './ingest.js';

/** Messages per minute per issuer the bench server may send: high, so the sender's own pace shows. */
const RATE_PER_MINUTE = 600_000;
/** How long the sends are watched after each import; 50,000 messages take far longer to go out. */
const DRAIN_SECONDS = 20;

/** Watches the receiver for DRAIN_SECONDS (or until every row's message came); answers messages/s. */
async function watchDrain(received: () => number) {
  const start = received();
  const started = performance.now();
  while (performance.now() - started < DRAIN_SECONDS * 1000 && received() < CSV_ROWS) {
    await new Promise((r) => setTimeout(r, 250));
  }
  const seconds = (performance.now() - started) / 1000;
  return { atImportEnd: start, received: received(), perSecond: (received() - start) / seconds };
}

/**
 * CSV import of 50,000 rows with `notify` on, the SMTP server a real one on loopback (smtp-server),
 * against the same import without notify, alternately on fresh databases (issue 24, throughput).
 */
export async function notifyWorkloads(engine: Engine, postgresUrl: string | null): Promise<WorkloadResult[]> {
  const plain: Awaited<ReturnType<typeof csvImport>>[] = [];
  const notified: Awaited<ReturnType<typeof csvImport<Awaited<ReturnType<typeof watchDrain>>>>>[] = [];
  for (let run = 0; run < RUNS; run++) {
    plain.push(await csvImport(engine, postgresUrl, { body: { notify: false } }));
    const smtp = await startSmtpServer();
    try {
      notified.push(
        await csvImport(engine, postgresUrl, {
          env: {
            SMTP_URL: smtp.url,
            MAIL_FROM: 'bench@bench.example',
            NOTIFY_RATE_PER_MINUTE: String(RATE_PER_MINUTE),
          },
          body: { notify: true },
          after: () => watchDrain(() => smtp.messages.length),
        }),
      );
    } finally {
      await smtp.close();
    }
  }
  const plainRate = median(plain.map((i) => i.rate));
  const notifyRate = median(notified.map((i) => i.rate));
  const drains = notified.map((i) => i.after).filter((d) => d !== undefined);
  const drainRate = median(drains.map((d) => d.perSecond));
  const allIssued = [...plain, ...notified].every((i) => i.status === 200 && i.report.issued === CSV_ROWS);
  return [
    {
      workload: `CSV import ${CSV_ROWS.toLocaleString('en')} rows, notify on (rows/s)`,
      rps: notifyRate,
      p99Ms: 0,
      rssMb: Math.max(...notified.map((i) => i.peakRssMb)),
      limit: { name: 'CSV import, notify off', rps: plainRate },
      ratio: ratio(notifyRate, plainRate),
      target: '>= 90 %',
      pass: allIssued && notifyRate >= 0.9 * plainRate,
      notes: `SMTP_URL at a loopback smtp-server, NOTIFY_RATE_PER_MINUTE=${RATE_PER_MINUTE}; medians of ${RUNS} alternate runs each (rows/s, notify on: ${notified.map((i) => i.rate).join(', ')}; off: ${plain.map((i) => i.rate).join(', ')})`,
    },
    {
      workload: 'notification sends draining behind the import (messages/s)',
      rps: Math.round(drainRate),
      p99Ms: 0,
      notes: `messages received by the SMTP server in the ${DRAIN_SECONDS} s after each import returned (${drains.map((d) => `${d.received - d.atImportEnd}, ${d.atImportEnd} already during the import`).join('; ')}); at the median rate all ${CSV_ROWS.toLocaleString('en')} would take about ${drainRate > 0 ? Math.round(CSV_ROWS / drainRate / 60) : '∞'} min`,
    },
  ];
}
