import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { Clock } from '../../core/clock.js';
import { AppError, errors } from '../../core/errors.js';
import type { ImportHistoryService } from '../ingest/import-history.service.js';
import { toCsv } from '../reports/csv.js';

/** Credentials read from the batch per query (keyset pages in id order). */
const PAGE = 100;
/**
 * ZIPs drawn at once: one per issuer (every key of it together) and two per process, so ZIPs never
 * take more than two renders' worth of a replica however many are asked for (issue 44: rendering
 * is bounded). Each replica bounds its own.
 */
export const ZIPS_PER_PROCESS = 2;
export const ZIPS_PER_ISSUER = 1;
/** What a refused ZIP is told to wait. */
export const ZIP_RETRY_AFTER_SECONDS = 30;
/**
 * How long the ZIP waits for its reader to take what was written: a client that stops reading
 * gives its slot back instead of holding it for as long as its connection stays open.
 */
const READER_IDLE_MS = 120_000;
export const MANIFEST_FILE = 'manifest.csv';
const MANIFEST_COLUMNS = ['file', 'credentialId', 'included', 'reason'] as const;

type ManifestRow = Record<(typeof MANIFEST_COLUMNS)[number], string>;

/** Answers 429 `rate_limited` with Retry-After when the issuer or the process has no ZIP slot free. */
export class ZipBusyError extends AppError {
  readonly retryAfterSeconds = ZIP_RETRY_AFTER_SECONDS;
}

export const certificateFileName = (credentialId: string) => `certificate-${credentialId}.pdf`;

/**
 * The bytes as a stream that lets go of them once read. yazl keeps every entry until the ZIP ends
 * (for the central directory), and an entry added with addBuffer keeps its buffer in it: a ZIP of
 * 1,000 certificates held all 1,000 PDFs until its last byte.
 */
function spent(bytes: Buffer): Readable {
  const stream = new PassThrough();
  stream.end(bytes);
  return stream;
}

/**
 * Runs `add` with Buffer's pool off. yazl keeps each entry's file name as a Buffer until the ZIP
 * ends (for the central directory) and makes it with Buffer.from, which slices a small string's
 * bytes out of the shared 64 KB pool slab (Buffer.poolSize on Node 24): with a certificate drawn
 * between two entries, each name kept a slab of its own alive, about 64 KB an entry, 48 MB of
 * RSS for a ZIP of 1,000 (measured). Unpooled, a name holds its own 52 bytes. Buffer.poolSize is
 * Node's documented setting, read at each allocation; `add` is synchronous, so nothing else runs
 * while it is 0.
 */
function unpooled(add: () => void): void {
  const size = Buffer.poolSize;
  Buffer.poolSize = 0;
  try {
    add();
  } finally {
    Buffer.poolSize = size;
  }
}

/**
 * The certificates of an import batch as one ZIP, streamed (issue 44 "Bulk ZIPs stream"): the
 * batch's credentials are read a page at a time, and each certificate is rendered (or taken from
 * the cache) only once the reader has taken the one before, and let go of once written, so memory
 * holds about one certificate whatever the batch's size. PDFs are stored, not deflated again: their streams are
 * compressed already. A credential that has no certificate (revoked, erased, certificates off for
 * its badge, unprintable) is left out and `manifest.csv`, the ZIP's last file, says why for each.
 */
export function createCertificateZips(deps: {
  clock: Clock;
  imports: Pick<ImportHistoryService, 'exists' | 'credentialIds'>;
  pdf: (issuerId: string, credentialId: string) => Promise<Buffer>;
  onError: (err: unknown) => void;
}) {
  let running = 0;
  const byIssuer = new Set<string>();

  function enter(issuerId: string): () => void {
    if (byIssuer.has(issuerId)) {
      throw new ZipBusyError(
        'rate_limited',
        'This issuer is already downloading a ZIP of certificates; retry when it has finished.',
      );
    }
    if (running >= ZIPS_PER_PROCESS) {
      throw new ZipBusyError(
        'rate_limited',
        'The service draws as many certificate ZIPs as it can at once; retry shortly.',
      );
    }
    running++;
    byIssuer.add(issuerId);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      running--;
      byIssuer.delete(issuerId);
    };
  }

  /** Resolves once the reader has taken what was written, or the stream is closed (false). */
  async function drained(out: PassThrough): Promise<boolean> {
    if (out.destroyed) return false;
    if (!out.writableNeedDrain) return true;
    const idle = AbortSignal.timeout(READER_IDLE_MS);
    try {
      await Promise.race([once(out, 'drain', { signal: idle }), once(out, 'close', { signal: idle })]);
    } catch {
      out.destroy();
      return false;
    }
    return !out.destroyed;
  }

  async function fill(issuerId: string, batchId: string, zip: ZipFile): Promise<void> {
    const out = zip.outputStream as PassThrough;
    const mtime = deps.clock.now();
    const manifest: ManifestRow[] = [];
    let after: string | null = null;
    for (;;) {
      const ids = await deps.imports.credentialIds(issuerId, batchId, after, PAGE);
      for (const id of ids) {
        if (!(await drained(out))) return;
        const file = certificateFileName(id);
        try {
          const pdf = await deps.pdf(issuerId, id);
          if (out.destroyed) return;
          unpooled(() => zip.addReadStream(spent(pdf), file, { mtime, compress: false, size: pdf.length }));
          manifest.push({ file, credentialId: id, included: 'yes', reason: '' });
        } catch (err) {
          // A credential without a certificate is reported; anything else ends the download.
          if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
          manifest.push({ file: '', credentialId: id, included: 'no', reason: err.message });
        }
      }
      if (ids.length < PAGE) break;
      after = ids[ids.length - 1] ?? null;
    }
    if (!(await drained(out))) return;
    zip.addBuffer(Buffer.from(toCsv(MANIFEST_COLUMNS, manifest), 'utf8'), MANIFEST_FILE, { mtime });
    zip.end();
  }

  return {
    /**
     * The ZIP stream of the batch's certificates. 404 for another issuer's or an unknown batch
     * (a dry run keeps none); 429 when a ZIP slot is not free. A batch issued before credentials
     * recorded their batch (migration 0145) gives a ZIP of the manifest alone.
     */
    async batchZip(issuerId: string, batchId: string): Promise<Readable> {
      if (!(await deps.imports.exists(issuerId, batchId))) throw errors.notFound('Import');
      const release = enter(issuerId);
      const zip = new ZipFile();
      // yazl's output is a PassThrough (its typings say only ReadableStream).
      const out = zip.outputStream as PassThrough;
      out.once('close', release);
      out.once('end', release);
      fill(issuerId, batchId, zip).then(
        () => {
          if (out.destroyed) release();
        },
        (err: unknown) => {
          deps.onError(err);
          out.destroy(err instanceof Error ? err : new Error(String(err)));
          release();
        },
      );
      return out;
    },
  };
}

export type CertificateZips = ReturnType<typeof createCertificateZips>;
