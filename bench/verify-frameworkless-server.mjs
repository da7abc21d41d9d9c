// Single verify without a framework: what issue 4 requires of every verification (read the
// credential with its issuer and definition, record the event, answer the result, with the
// service's own parsing and views from dist/) on node:http, with no hooks and no headers beyond the
// content type, one read per request. Measured in the same run as the bare Fastify route, it shows
// how much of the gap to that route is the work itself and how much is the service's request path.
// Events are written in batches of 250, as the service writes them.
import http from 'node:http';
import Database from 'better-sqlite3';
import pg from 'pg';
import { publicUrls } from '../dist/src/core/urls.js';
import {
  assertionRefParser,
  rowMatches,
  toResult,
  unknownResult,
} from '../dist/src/modules/verification/verification.views.js';

const BATCH = 250;
const base = process.env.PUBLIC_BASE_URL ?? '';
const databaseUrl = process.env.DATABASE_URL ?? '';
const urls = publicUrls(base);
const parse = assertionRefParser(base);

const READ = `select c.id, c.issuer_id, c.definition_id, c.display_name, c.issued_on, c.expires_on,
  c.revoked_at, c.revoked_reason, c.source, c.reissued_from, i.slug as issuer_slug, i.name as issuer_name,
  i.brand_primary_color, i.brand_logo_url, d.slug as definition_slug, d.name as definition_name, d.image_url
  from credentials c join issuers i on i.id = c.issuer_id join definitions d on d.id = c.definition_id`;

/** The read by id and the batched event insert of one engine; event commits do not wait for the disk, as the service's do not. */
function engine() {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new Database(databaseUrl.slice('sqlite:'.length));
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.pragma('synchronous = NORMAL');
    const read = db.prepare(`${READ} where c.id = ?`);
    const rows = Array.from({ length: BATCH }, () => '(?, ?, ?, ?, ?)').join(', ');
    const insert = db.prepare(
      `insert into verification_events (issuer_id, credential_id, channel, country, occurred_at) values ${rows}`,
    );
    return {
      read: async (id) => read.get(id),
      write: async (events) => {
        insert.run(events.flat());
      },
    };
  }
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10, options: '-c synchronous_commit=off' });
  return {
    read: async (id) =>
      (await pool.query({ name: 'frameworkless_read', text: `${READ} where c.id = $1`, values: [id] })).rows[0],
    write: async (events) => {
      const column = (k) => events.map((event) => event[k]);
      await pool.query({
        name: 'frameworkless_events',
        text: `insert into verification_events (issuer_id, credential_id, channel, country, occurred_at)
          select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])`,
        values: [column(0), column(1), column(2), column(3), column(4)],
      });
    },
  };
}

const { read, write } = engine();
let events = [];

/** The service's own parsing, issuer match and result (status, partial name, URLs) around one read. */
async function verify(id) {
  const ref = parse(id);
  const row = ref ? await read(ref.credentialId) : undefined;
  if (!ref || !rowMatches(ref, row)) return unknownResult(id);
  const now = new Date();
  events.push([row.issuer_id, row.id, 'api', 'ZZ', now.toISOString()]);
  if (events.length >= BATCH) {
    const batch = events;
    events = [];
    await write(batch);
  }
  return toResult(urls, id, row, now);
}

http
  .createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const answer = (status, result) => {
        const text = JSON.stringify(result);
        response.writeHead(status, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(text),
        });
        response.end(text);
      };
      if (request.url === '/ready') return answer(200, { status: 'ready' });
      let id;
      try {
        id = JSON.parse(body).id;
      } catch {
        return answer(400, { error: 'validation_failed' });
      }
      verify(String(id)).then(
        (result) => answer(200, result),
        (err) => answer(500, { error: String(err) }),
      );
    });
  })
  .listen(Number(process.env.PORT), '127.0.0.1');
