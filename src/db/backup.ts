import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import SQLite from 'better-sqlite3';

export interface SqliteBackup {
  file: string;
  pages: number;
  bytes: number;
  /** `pragma quick_check` of the copy: "ok" when it is sound. */
  check: string;
}

/**
 * Online backup of a SQLite database with SQLite's backup API while the server keeps serving: the
 * copy is one consistent snapshot (all pages in one step under one read transaction), written beside
 * the target and renamed into place, so a failed backup never leaves a truncated file behind.
 */
export async function backupSqlite(source: string, file: string): Promise<SqliteBackup> {
  if (existsSync(file)) throw new Error(`${file} already exists; choose a new file name`);
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  const db = new SQLite(source, { readonly: true, fileMustExist: true });
  try {
    const progress = await db.backup(partial, { progress: ({ remainingPages }) => remainingPages });
    const copy = new SQLite(partial, { readonly: true });
    let check: string;
    try {
      check = String(copy.pragma('quick_check', { simple: true }));
    } finally {
      copy.close();
    }
    renameSync(partial, file);
    return { file, pages: progress.totalPages, bytes: statSync(file).size, check };
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  } finally {
    db.close();
  }
}
