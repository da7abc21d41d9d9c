import type SQLite from 'better-sqlite3';
import type { Change, ChangeFeed, FeedEvent } from './change-feed.js';

/** The SQL function the temporary triggers below call, registered on this process's connection only. */
const CHANGED = 'accolade_read_cache_changed';

/**
 * What the triggers report: `c` and credential ids (null ones skipped), `i` an issuer id, `d` a
 * definition id, `k` the issuer whose API keys changed, `p` a plan code. The same changes as
 * PostgreSQL's triggers (migrations 0053 to 0055), row by row: SQLite has no statement triggers over
 * transition tables.
 */
const TRIGGERS = [
  `after update on main.credentials begin
     select ${CHANGED}('c', OLD.id, OLD.reissued_from, NEW.id, NEW.reissued_from); end`,
  `after delete on main.credentials begin select ${CHANGED}('c', OLD.id, OLD.reissued_from); end`,
  `after insert on main.credentials when NEW.reissued_from is not null begin
     select ${CHANGED}('c', NEW.reissued_from); end`,
  `after update on main.issuers begin select ${CHANGED}('i', OLD.id); end`,
  `after delete on main.issuers begin select ${CHANGED}('i', OLD.id); end`,
  `after update on main.definitions begin select ${CHANGED}('d', OLD.id); end`,
  `after delete on main.definitions begin select ${CHANGED}('d', OLD.id); end`,
  `after insert on main.alignments begin select ${CHANGED}('d', NEW.definition_id); end`,
  `after update on main.alignments begin select ${CHANGED}('d', OLD.definition_id), ${CHANGED}('d', NEW.definition_id); end`,
  `after delete on main.alignments begin select ${CHANGED}('d', OLD.definition_id); end`,
  ...(['insert', 'update', 'delete'] as const).map((event) => {
    const rows = event === 'insert' ? ['NEW'] : event === 'delete' ? ['OLD'] : ['OLD', 'NEW'];
    const calls = rows.map(
      (row) => `${CHANGED}(case when ${row}.target_type = 'credential' then 'c' else 'd' end, ${row}.target_id)`,
    );
    return `after ${event} on main.endorsements begin select ${calls.join(', ')}; end`;
  }),
  `after update on main.vc_credentials begin select ${CHANGED}('c', OLD.credential_id, NEW.credential_id); end`,
  `after delete on main.vc_credentials begin select ${CHANGED}('c', OLD.credential_id); end`,
  `after update on main.api_keys begin select ${CHANGED}('k', OLD.issuer_id), ${CHANGED}('k', NEW.issuer_id); end`,
  `after delete on main.api_keys begin select ${CHANGED}('k', OLD.issuer_id); end`,
  `after update on main.plans begin select ${CHANGED}('p', OLD.code), ${CHANGED}('p', NEW.code); end`,
  `after delete on main.plans begin select ${CHANGED}('p', OLD.code); end`,
];

/**
 * How often, at most, a cached read asks SQLite whether another process committed: `data_version`
 * cost about 12 µs a call under load (a WAL read lock each time), a tenth of a verify's whole
 * answer when asked on every read. So another process's commit shows within this many
 * milliseconds (PostgreSQL's notifications arrive within a few on another replica); this process's
 * own writes show at once, and so does everything before a `fence`.
 */
export const CATCH_UP_MS = 1;

/** A trigger's report as a change; null for one that names nothing. */
function changeOf(kind: unknown, ids: unknown[]): Change | null {
  const named = ids.filter((id): id is string => typeof id === 'string');
  if (named.length === 0) return null;
  const [first] = named as [string];
  switch (kind) {
    case 'c':
      return { kind: 'credentials', ids: named };
    case 'i':
      return { kind: 'issuer', id: first };
    case 'k':
      return { kind: 'keys', id: first };
    case 'p':
      return { kind: 'plan', code: first };
    default:
      return { kind: 'definition', id: first };
  }
}

/**
 * The read caches' change feed on SQLite, for the process that holds `handle` (the service's only
 * writing connection):
 * - Its own writes: temporary triggers (they exist for this connection alone, so the CLI or another
 *   process opening the file neither fires nor needs them) call a function of this process inside
 *   the writing statement. A change is heard before that statement returns, so before its
 *   transaction commits and before any read that could see it: no fence waits for them.
 *   A write that is rolled back has dropped rows for nothing, which costs a read, never a stale row.
 * - Everyone else's (the CLI, a second process on the same file, SQL by hand): SQLite's
 *   `data_version`, which changes once another connection has committed. A cached read asks for it
 *   (`catchUp`, at most every CATCH_UP_MS), and so does every `fence`; when it moved, every cache is
 *   emptied.
 */
export function createSqliteChangeFeed(handle: SQLite.Database): ChangeFeed {
  const listeners: ((event: FeedEvent) => void)[] = [];
  const dataVersion = handle.prepare('pragma data_version').pluck();
  let version: unknown = null;
  let askedAt = Number.NEGATIVE_INFINITY;
  let live = false;
  let registered = false;
  let liveWaiters: (() => void)[] = [];

  const emit = (event: FeedEvent) => {
    for (const listener of listeners) listener(event);
  };

  /** Empties every cache if another connection committed since the last time this asked. */
  function askDataVersion(): void {
    askedAt = performance.now();
    const now = dataVersion.get();
    if (now === version) return;
    version = now;
    emit({ kind: 'all' });
  }

  return {
    name: 'read-cache-change-feed',
    get live() {
      return live;
    },
    backendPid: null,
    subscribe(listener) {
      listeners.push(listener);
    },
    catchUp() {
      if (live && performance.now() - askedAt >= CATCH_UP_MS) askDataVersion();
    },
    fence() {
      if (!live) return Promise.reject(new Error('the change feed is not listening'));
      askDataVersion();
      return Promise.resolve();
    },
    whenLive: () => (live ? Promise.resolve() : new Promise<void>((resolve) => liveWaiters.push(resolve))),
    start() {
      if (live) return;
      if (!registered) {
        handle.function(CHANGED, { varargs: true, deterministic: false }, (kind: unknown, ...ids: unknown[]) => {
          const change = live ? changeOf(kind, ids) : null;
          if (change) emit(change);
          return null;
        });
        TRIGGERS.forEach((body, i) => {
          handle.exec(`create temp trigger if not exists accolade_read_cache_${i} ${body}`);
        });
        registered = true;
      }
      version = dataVersion.get();
      askedAt = performance.now();
      live = true;
      emit({ kind: 'up' });
      for (const resolve of liveWaiters) resolve();
      liveWaiters = [];
    },
    async stop() {
      if (!live) return;
      live = false;
      emit({ kind: 'down' });
    },
  };
}
