import { existsSync } from 'node:fs';
import { backupSqlite } from '../db/backup.js';
import { type CliCommand, UsageError } from './context.js';

export const POSTGRES_BACKUP_HELP = `accolade backup copies SQLite databases only. Back PostgreSQL up with its own tools:
  pg_dump --format=custom --file=accolade.dump "$DATABASE_URL"
  createdb accolade_restore && pg_restore --no-owner --dbname=accolade_restore accolade.dump
For point-in-time recovery, archive the WAL (archive_mode=on, archive_command) and take base backups
with pg_basebackup; restore a base backup with restore_command and recovery_target_time.`;

/** `accolade backup <file>`: an online copy of the SQLite database; on PostgreSQL, how to use pg_dump (exit 2). */
export const backupCommand: CliCommand = async (args, ctx) => {
  const [file, ...rest] = args;
  if (!file || rest.length > 0 || file.startsWith('-')) throw new UsageError('backup <file>');
  const database = ctx.config.database;
  if (database.dialect === 'postgres') {
    ctx.out(POSTGRES_BACKUP_HELP);
    return 2;
  }
  if (existsSync(file)) throw new UsageError(`${file} already exists; choose a new file name`);
  const started = Date.now();
  const result = await backupSqlite(database.path, file);
  ctx.out(
    `Backed up ${database.path} to ${result.file}: ${result.pages} pages, ${(result.bytes / 1024 / 1024).toFixed(1)} MB in ${Date.now() - started} ms; quick_check ${result.check}.`,
  );
  ctx.out(
    `Restore: stop the server and start it with DATABASE_URL=sqlite:${result.file}, or move ${database.path} and its -wal and -shm files aside and copy the backup in their place.`,
  );
  return result.check === 'ok' ? 0 : 1;
};
