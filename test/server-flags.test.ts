import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../bench/lib/harness.js';

const FLAGGED_SERVER = `node ${SERVER_NODE_FLAGS.join(' ')} dist/src/server.js`;

/** The benchmarks and reliability scripts measure the server as production starts it. */
describe('server process flags', () => {
  it('npm start runs the server with the heap bounds the harness measures', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toContain(FLAGGED_SERVER);
  });

  it.each(['README.md', 'docs/deployment.md'])('%s starts replicas with the same flags', (file) => {
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(FLAGGED_SERVER);
    expect(text.replaceAll(FLAGGED_SERVER, '')).not.toMatch(/node dist\/src\/server\.js/);
  });
});
