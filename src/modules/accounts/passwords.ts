import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Console passwords: scrypt (memory-hard, in node:crypto) at N=2^15, r=8, p=1 (about 32 MiB and
 * tens of milliseconds per hash), stored as `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (base64url) so
 * the parameters can be raised later without breaking stored hashes.
 */
const LOG_N = 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;
const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number, length: number): Promise<Buffer> {
  const N = 2 ** logN;
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, length, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, LOG_N, R, P, KEY_LENGTH);
  return `$scrypt$ln=${LOG_N},r=${R},p=${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/**
 * A stored hash no password matches, checked when the account does not exist so that answer
 * takes as long as a wrong password (no timing oracle for which emails have accounts).
 */
const NO_ACCOUNT = `$scrypt$ln=${LOG_N},r=${R},p=${P}$${Buffer.alloc(SALT_BYTES).toString('base64url')}$${Buffer.alloc(KEY_LENGTH).toString('base64url')}`;

/** True when `password` matches `stored` (constant-time comparison); no stored hash runs the KDF anyway. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parsed = stored === null ? null : PHC.exec(stored);
  const [, logN, r, p, salt, hash] = parsed ?? (PHC.exec(NO_ACCOUNT) as RegExpExecArray);
  const expected = Buffer.from(hash as string, 'base64url');
  const actual = await derive(
    password,
    Buffer.from(salt as string, 'base64url'),
    Number(logN),
    Number(r),
    Number(p),
    expected.length,
  );
  return timingSafeEqual(actual, expected) && parsed !== null;
}
