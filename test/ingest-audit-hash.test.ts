import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from '../src/core/hashing.js';
import type { AuditRow } from '../src/modules/audit/audit.repository.js';
import { recordHash } from '../src/modules/audit/audit.service.js';

/** The definition the chains were written with: sha256(prev_hash + canonical JSON of the record). */
function referenceHash(row: Omit<AuditRow, 'hash'>): string {
  return sha256Hex(
    row.prev_hash +
      canonicalJson({
        id: row.id,
        issuerId: row.issuer_id,
        stripe: row.stripe,
        seq: row.seq,
        occurredAt: row.occurred_at,
        actor: row.actor,
        action: row.action,
        targetType: row.target_type,
        targetId: row.target_id,
        details: row.details,
      }),
  );
}

describe('audit record hash', () => {
  it('equals the canonical JSON definition, so existing chains still verify', () => {
    const base: Omit<AuditRow, 'hash'> = {
      id: '0b6f3c1e-5d0a-4c1f-9a57-2f1f3c2b9e10',
      issuer_id: 'issuer-1',
      stripe: 3,
      seq: 42,
      occurred_at: '2026-11-21T10:00:00.000Z',
      actor: 'key-1',
      action: 'credential.issued',
      target_type: 'credential',
      target_id: 'cred-1',
      details: canonicalJson({ completionKey: 'k"1\\\u2028é', source: 'csv', batchId: 'b' }),
      prev_hash: 'ab'.repeat(32),
    };
    const variants: Omit<AuditRow, 'hash'>[] = [
      base,
      { ...base, prev_hash: '', seq: 1, stripe: 0 },
      { ...base, actor: 'cli', action: 'gdpr.erase', target_type: 'gdpr_request', details: '{}' },
      { ...base, target_id: 'line\nbreak\ttab "quoted" \u0001', details: canonicalJson({ n: 1, list: [1, 'a'] }) },
    ];
    for (const row of variants) expect(recordHash(row)).toBe(referenceHash(row));
  });
});

describe('canonical JSON', () => {
  it('writes the bytes existing chains were hashed with: code-unit key order, undefined left out', () => {
    expect(canonicalJson({ b: 1, a: 'x', c: undefined, é: null, B: [2, { z: true, y: 'q"' }] })).toBe(
      '{"B":[2,{"y":"q\\"","z":true}],"a":"x","b":1,"é":null}',
    );
    expect(canonicalJson({ '\u{1F600}': 1, '\uFFFF': 2, a: {} })).toBe('{"a":{},"\u{1F600}":1,"\uFFFF":2}');
    expect(canonicalJson({ only: undefined })).toBe('{}');
    expect(canonicalJson([null, 'a\u2028', [], {}])).toBe('[null,"a\u2028",[],{}]');
    expect(canonicalJson('text')).toBe('"text"');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
