// Reads Vitest's JSON report, prints one closing line, and fails when no PostgreSQL test ran
// (with --sqlite-only, for a run that leaves PostgreSQL out on purpose: when no SQLite test ran).
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const sqliteOnly = process.argv.includes('--sqlite-only');
const tests = report.testResults.flatMap((file) => file.assertionResults);
const passed = tests.filter((t) => t.status === 'passed').length;
const failed = tests.filter((t) => t.status === 'failed').length;
const skipped = tests.length - passed - failed;
const postgres = tests.filter((t) => t.status === 'passed' && /\bpostgres\b/.test(t.fullName)).length;
const sqlite = tests.filter((t) => t.status === 'passed' && /\bsqlite\b/.test(t.fullName)).length;
console.log(`dialects: ${sqlite} SQLite tests passed, ${postgres} PostgreSQL tests passed`);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (failed > 0 || !report.success) process.exit(1);
if (sqliteOnly && sqlite === 0) {
  console.error('The SQLite suite did not run.');
  process.exit(1);
}
if (!sqliteOnly && postgres === 0) {
  console.error('The PostgreSQL suite did not run: set TEST_DATABASE_URL.');
  process.exit(1);
}
