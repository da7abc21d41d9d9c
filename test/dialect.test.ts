import { describe, expect, it } from 'vitest';
import { isUnavailable } from '../src/db/dialect.js';

describe('database availability errors', () => {
  it.each([
    'SQLITE_FULL',
    'SQLITE_BUSY',
    'SQLITE_IOERR',
    'SQLITE_IOERR_WRITE',
    'SQLITE_IOERR_FSYNC',
    '57P01',
    'ECONNREFUSED',
  ])('treats %s as the database being unavailable (503), not a 500', (code) => {
    expect(isUnavailable(Object.assign(new Error('x'), { code }))).toBe(true);
  });

  it('treats a pg client whose connection broke (a ROLLBACK after a restart) as unavailable', () => {
    expect(isUnavailable(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
  });

  it('leaves constraint errors and HTTP-level errors alone', () => {
    expect(isUnavailable(Object.assign(new Error('x'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }))).toBe(false);
    expect(isUnavailable(Object.assign(new Error('aborted'), { code: 'ECONNRESET', statusCode: 400 }))).toBe(false);
  });
});
