import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupSqlite } from '../src/db/backup.js';

/** Issue 22 item 22: a backup leaves one file behind, and nothing at all when it fails. */
describe('backupSqlite', () => {
  let dir: string;
  let source: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'accolade-backup-'));
    source = join(dir, 'source.db');
    const db = new SQLite(source);
    db.pragma('journal_mode = WAL');
    db.exec("create table t (x text); insert into t values ('kept')");
    db.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one self-contained file beside a WAL database: no .partial, -wal or -shm files', async () => {
    const out = join(dir, 'out');
    mkdirSync(out);
    const result = await backupSqlite(source, join(out, 'copy.db'));
    expect(result.check).toBe('ok');
    expect(readdirSync(out)).toEqual(['copy.db']);
    const copy = new SQLite(join(out, 'copy.db'), { readonly: true });
    expect(copy.prepare('select x from t').pluck().get()).toBe('kept');
    copy.close();
    expect(readdirSync(out)).toEqual(['copy.db']);
  });

  it('leaves nothing behind when the backup fails', async () => {
    const broken = join(dir, 'broken.db');
    writeFileSync(broken, 'this is not a database, only text that is long enough to be read as a header'.repeat(100));
    const out = mkdtempSync(join(dir, 'failed-'));
    await expect(backupSqlite(broken, join(out, 'copy.db'))).rejects.toThrow();
    expect(readdirSync(out)).toEqual([]);
  });
});
