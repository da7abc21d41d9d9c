import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import SQLite from 'better-sqlite3';

export interface SqliteBackup {
  file: string;
  pages: number;
  bytes: number;
  /** `pragma quick_check` of the copy: "ok" when it is sound. */
  check: string;
}

/** The files SQLite may keep beside a database while it is open. */
const SIDE_FILES = ['', '-journal', '-wal', '-shm'];

/**
 * Online backup of a SQLite database with SQLite's backup API while the server keeps serving: the
 * copy is one consistent snapshot (all pages in one step under one read transaction), written beside
 * the target and renamed into place, so a failed backup never leaves a truncated file behind.
 *
 * A copy of a WAL database is a WAL database: opening it to check it would leave `-wal` and `-shm`
 * files beside it. The copy is switched to a rollback journal first, so the backup is one
 * self-contained file (the server turns WAL on again when it opens it), and whatever SQLite left
 * beside the partial file is removed on success and on failure alike.
 */
export async function backupSqlite(source: string, file: string): Promise<SqliteBackup> {
  if (existsSync(file)) throw new Error(`${file} already exists; choose a new file name`);
  const partial = `${file}.partial`;
  const removePartial = () => {
    for (const suffix of SIDE_FILES) rmSync(partial + suffix, { force: true });
  };
  removePartial();
  const db = new SQLite(source, { readonly: true, fileMustExist: true });
  try {
    const progress = await db.backup(partial, { progress: ({ remainingPages }) => remainingPages });
    const copy = new SQLite(partial, { fileMustExist: true });
    let check: string;
    try {
      copy.pragma('journal_mode = DELETE');
      check = String(copy.pragma('quick_check', { simple: true }));
    } finally {
      copy.close();
    }
    renameSync(partial, file);
    return { file, pages: progress.totalPages, bytes: statSync(file).size, check };
  } finally {
    removePartial();
    db.close();
  }
}
