import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Role } from '../src/core/context.js';
import { PASSWORD } from './console.support.js';
import { consoleBundle } from './console-ui.support.js';
import { createTestApp, type TestApp, type TestAppOptions, type TestDialect } from './helpers.js';
import { freePort } from './verification.support.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core over the page as it stands: no serious or critical violation. The console's CSP allows
 * no injected script tag, so the source is evaluated through the DevTools protocol instead.
 */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<AxeViolation[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations.map(
      ({ id, impact, help, nodes }) => ({ id, impact, help, nodes: nodes.map((node) => ({ target: node.target })) })))`,
  );
  const blocking = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(blocking, `${label}: ${JSON.stringify(blocking, null, 1)}`).toEqual([]);
}

/** Collects what the browser reports as a CSP violation or an uncaught error on a page. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) {
      problems.push(message.text());
    }
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return problems;
}

/**
 * The console bundle built and a test app listening on a free port of 127.0.0.1, with PUBLIC_BASE_URL
 * (merged over `options.env`) its address, so invite links point at it.
 */
export async function startConsoleApp(
  dialect: TestDialect,
  options: TestAppOptions = {},
): Promise<{ t: TestApp; base: string }> {
  await consoleBundle();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await createTestApp(dialect, { ...options, env: { ...options.env, PUBLIC_BASE_URL: base } });
  await t.app.listen({ port, host: '127.0.0.1' });
  return { t, base };
}

/** A new browser context and a page in it, with the page's CSP violations and uncaught errors watched. */
export async function openPage(
  browser: Browser,
  options: BrowserContextOptions,
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  return { context, page, problems: watchProblems(page) };
}

/** Opens an invite link, sets the password and waits for the dashboard: the page is signed in. */
export async function acceptInvite(page: Page, inviteUrl: string): Promise<void> {
  await page.goto(inviteUrl);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
}

/** Invites a user through the service, as the CLI does, and signs the page in through the invite link. */
export async function signInByInvite(
  page: Page,
  app: FastifyInstance,
  issuerId: string,
  email: string,
  role: Role,
): Promise<void> {
  const { inviteUrl } = await app.services.accounts.invite(issuerId, email, role, 'system');
  await acceptInvite(page, inviteUrl);
}
