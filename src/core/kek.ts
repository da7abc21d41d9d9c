import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { Config } from '../config.js';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const SEAL_VERSION = 'v1';
const HKDF_INFO = 'accolade/signing-key-encryption/v1';

/** Where the generated secret of an embedded (SQLite file) database lives: beside it. */
export const secretFileFor = (databasePath: string) => `${databasePath}.signing-secret`;

export class SigningSecretMissing extends Error {
  constructor() {
    super(
      'SIGNING_KEY_SECRET is required on PostgreSQL: it encrypts the issuers’ signing keys at rest (docs/open-badges.md).',
    );
    this.name = 'SigningSecretMissing';
  }
}

/**
 * The secret on SQLite without SIGNING_KEY_SECRET: read from the file beside the database, created
 * on first use with 32 random bytes, readable by the owner only. An in-memory database lives no
 * longer than the process, so its secret is random per process.
 */
let memorySecret: string | undefined;

function embeddedSecret(path: string): string {
  // One per process, so everything that seals (signing keys, SSO and webhook secrets) opens alike.
  if (path === ':memory:') {
    memorySecret ??= randomBytes(KEY_BYTES).toString('base64url');
    return memorySecret;
  }
  const file = secretFileFor(path);
  try {
    writeFileSync(file, `${randomBytes(KEY_BYTES).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  // An existing file keeps its contents; its mode is narrowed in case a copy widened it.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return readFileSync(file, 'utf8').trim();
}

/** Start-up check, before the database is touched: PostgreSQL needs SIGNING_KEY_SECRET. */
export function requireSigningSecret(config: Pick<Config, 'database' | 'signingKeySecret'>): void {
  if (config.signingKeySecret === null && config.database.dialect === 'postgres') throw new SigningSecretMissing();
}

/**
 * The key-encryption key (AES-256) for the issuers' private signing keys, derived with HKDF from
 * SIGNING_KEY_SECRET, or from the generated file beside an SQLite database. PostgreSQL has no place
 * beside the data that backups would not also copy, so there the secret is required.
 */
export function keyEncryptionKey(config: Pick<Config, 'database' | 'signingKeySecret'>): Buffer {
  let secret = config.signingKeySecret;
  if (secret === null) {
    if (config.database.dialect === 'postgres') throw new SigningSecretMissing();
    secret = embeddedSecret(config.database.path);
  }
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), HKDF_INFO, KEY_BYTES));
}

/** AES-256-GCM with `context` (which key of which issuer) as associated data: a sealed key moved to another row fails to open. */
export function seal(kek: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', kek, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [SEAL_VERSION, iv, cipher.getAuthTag(), body]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

export function open(kek: Buffer, sealed: string, context: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== SEAL_VERSION || !iv || !tag || body === undefined) throw new Error('unreadable sealed signing key');
  const decipher = createDecipheriv('aes-256-gcm', kek, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
