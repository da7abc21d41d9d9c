import { describe, expect, it } from 'vitest';
import { main } from '../scripts/reliability/run.js';

describe('npm run reliability', () => {
  it('refuses an unknown script name with a usage exit code before running anything', async () => {
    expect(await main(['no-such-script', '--no-build'])).toBe(64);
  });
});
