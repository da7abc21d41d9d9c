import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDatabase, migrateToLatest } from '../src/db/database.js';
import { buildConsole } from './build-console.js';
import { launchChromium } from './lib/chromium.js';

/**
 * `npm run console:screenshots`: builds the console, runs the service on an in-memory SQLite
 * database with a sample issuer, signs an owner in with Debian's Chromium and photographs each page
 * at desktop (1280×800) and phone (390×844) size into docs/console/. Loopback only.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'docs', 'console');
const PASSWORD = 'screenshots only, not a real password';
const PAGES = [
  'dashboard',
  'definitions',
  'issue',
  'credentials',
  'expiring',
  'pathways',
  'audit',
  'keys',
  'webhooks',
  'team',
  'privacy',
  'settings',
  'sign-in-settings',
  'connectors',
  'connectors/moodle',
];

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

await buildConsole();
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const config = loadConfig({
  DATABASE_URL: 'sqlite::memory:',
  PUBLIC_BASE_URL: base,
  LOG_LEVEL: 'silent',
  BOOTSTRAP_ISSUER: 'false',
  WEBHOOK_DISPATCH: 'off',
  WEBHOOK_ALLOW_PRIVATE: 'true',
});
const database = createDatabase(config.database);
await migrateToLatest(database);
const app = await buildApp({ config, database, logger: false });
await app.listen({ port, host: '127.0.0.1' });
const browser = await launchChromium();
try {
  const { issuer, key } = await app.services.issuers.createIssuer({
    name: 'Northwind Academy',
    slug: 'northwind',
    email: 'badges@northwind.example',
    url: 'https://northwind.example',
    plan: 'growth',
    brandPrimaryColor: '#1d4ed8',
  });
  const headers = { authorization: `Bearer ${key.key}` };
  const definitions: string[] = [];
  for (const [name, description] of [
    ['Data Literacy', 'Reads, questions and explains data.'],
    ['SQL Foundations', 'Writes correct queries over relational data.'],
  ]) {
    // SQL Foundations lasts 20 days, so its credentials show on "Expiring soon" (30 days).
    const validity = name === 'SQL Foundations' ? { expiresAfterDays: 20 } : {};
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers,
      payload: { name, description, ...validity },
    });
    definitions.push(res.json().id);
  }
  for (let i = 0; i < 12; i++) {
    await app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers,
      payload: {
        definitionId: definitions[i % 2],
        recipientEmail: `learner${i}@example.test`,
        recipientName: `Learner ${i}`,
        completionKey: `cohort-7-${i}`,
      },
    });
  }
  const { inviteUrl } = await app.services.accounts.invite(issuer.id, 'owner@northwind.example', 'owner', 'cli');
  mkdirSync(OUT, { recursive: true });
  for (const [device, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(`${base}/console/login`);
    await page.getByRole('heading', { name: 'Sign in to Accolade' }).waitFor();
    await page.screenshot({ path: join(OUT, `login-${device}.png`) });
    if (device === 'desktop') {
      await page.goto(inviteUrl);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Set password' }).click();
    } else {
      await page.getByLabel('Email').fill('owner@northwind.example');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    for (const name of PAGES) {
      await page.goto(`${base}/console/${name}`);
      await page.locator('main h1').waitFor();
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: join(OUT, `${name.replaceAll('/', '-')}-${device}.png`) });
    }
    await context.close();
  }
  process.stdout.write(`screenshots written to ${OUT}\n`);
} finally {
  await browser.close();
  await app.close();
  await database.close();
}
