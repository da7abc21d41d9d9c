import { describe, expect, it } from 'vitest';
import { coalescedReads } from '../src/db/coalesced-reads.js';

/** A read the test completes by hand, recording the keys of each call. */
function manualRead() {
  const calls: { keys: string[]; finish(values?: Record<string, number>): void; fail(err: Error): void }[] = [];
  const read = (keys: string[]) =>
    new Promise<Map<string, number>>((resolve, reject) => {
      calls.push({
        keys,
        finish: (values = Object.fromEntries(keys.map((key) => [key, key.length]))) =>
          resolve(new Map(Object.entries(values))),
        fail: reject,
      });
    });
  return { calls, read };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('coalesced reads', () => {
  it('reads a key at once, alone, when nothing is running', async () => {
    const { calls, read } = manualRead();
    const get = coalescedReads(read, { maxInFlight: 2, maxKeys: 10 });
    const answer = get('abc');
    expect(calls.map((call) => call.keys)).toEqual([['abc']]);
    calls[0]?.finish({ abc: 7 });
    expect(await answer).toBe(7);
  });

  it('reads the keys asked while the reads are busy together, once each, and answers every ask', async () => {
    const { calls, read } = manualRead();
    const get = coalescedReads(read, { maxInFlight: 1, maxKeys: 10 });
    const first = get('a');
    const waiting = [get('bb'), get('ccc'), get('bb'), get('missing')];
    expect(calls).toHaveLength(1);
    calls[0]?.finish();
    await turn();
    expect(calls.map((call) => call.keys)).toEqual([['a'], ['bb', 'ccc', 'missing']]);
    calls[1]?.finish({ bb: 2, ccc: 3 });
    expect(await first).toBe(1);
    expect(await Promise.all(waiting)).toEqual([2, 3, 2, undefined]);
  });

  it('never answers a key from a read that started before it was asked', async () => {
    // A revocation committed between the first read and the second ask must show in the answer.
    const { calls, read } = manualRead();
    const get = coalescedReads(read, { maxInFlight: 1, maxKeys: 10 });
    const before = get('id');
    const after = get('id');
    calls[0]?.finish({ id: 1 });
    expect(await before).toBe(1);
    await turn();
    expect(calls).toHaveLength(2);
    calls[1]?.finish({ id: 2 });
    expect(await after).toBe(2);
  });

  it('runs at most maxInFlight reads of at most maxKeys keys', async () => {
    const { calls, read } = manualRead();
    const get = coalescedReads(read, { maxInFlight: 2, maxKeys: 2 });
    const answers = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7'].map(get);
    expect(calls.map((call) => call.keys)).toEqual([['k1'], ['k2']]);
    calls[0]?.finish();
    await turn();
    expect(calls.map((call) => call.keys)).toEqual([['k1'], ['k2'], ['k3', 'k4']]);
    calls[1]?.finish();
    await turn();
    expect(calls.map((call) => call.keys).slice(3)).toEqual([['k5', 'k6']]);
    calls[2]?.finish();
    calls[3]?.finish();
    await turn();
    expect(calls.map((call) => call.keys).slice(4)).toEqual([['k7']]);
    calls[4]?.finish();
    expect(await Promise.all(answers)).toEqual([2, 2, 2, 2, 2, 2, 2]);
  });

  it('fails every ask of a failed read, and reads the next keys afresh', async () => {
    const { calls, read } = manualRead();
    const get = coalescedReads(read, { maxInFlight: 1, maxKeys: 10 });
    const first = get('a');
    const second = [get('b'), get('c')];
    const down = new Error('database unavailable');
    calls[0]?.fail(down);
    await expect(first).rejects.toBe(down);
    await turn();
    calls[1]?.fail(down);
    await expect(Promise.all(second)).rejects.toBe(down);
    const later = get('d');
    expect(calls.map((call) => call.keys)).toEqual([['a'], ['b', 'c'], ['d']]);
    calls[2]?.finish();
    expect(await later).toBe(1);
  });
});
