import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autoPostPage, launchPage, registeredPage, ruleForm } from '../src/modules/lti/lti.pages.js';
import type { LaunchView } from '../src/modules/lti/lti.service.js';
import { ltiMessages } from '../src/modules/lti/messages/index.js';
import { expectAccessible } from './console-browser.support.js';
import { launchChromium } from './verification.support.js';

const languages = { locale: 'fr-CA', badge: 'en' };
const QR =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** Every page a launch can show, as the service answers them. */
const VIEWS: LaunchView[] = [
  { page: 'picker', languages, token: 't', definitions: [{ id: 'd1', name: 'Lab Safety' }] },
  { page: 'picker', languages, token: 't', definitions: [] },
  {
    page: 'earned',
    languages,
    badge: 'Lab Safety',
    verifyUrl: 'https://example.test/verify/a/b',
    assertionUrl: 'https://example.test/a',
    wallet: { qr: QR, lcwUrl: 'https://lcw.example/x', offer: 'openid-credential-offer://x' },
    certificateUrl: 'https://example.test/c.pdf',
  },
  { page: 'progress', languages, badge: 'Lab Safety', minScore: 80, percent: 72.25 },
  { page: 'no_email', languages, badge: 'Lab Safety' },
  { page: 'nothing', languages, reason: 'learnersOnly' },
  {
    page: 'instructor',
    languages,
    badge: 'Lab Safety',
    rule: 'score',
    minScore: 80,
    token: 't',
    notice: { done: 'checked', count: 1 },
    rows: [
      { userId: 'u1', name: 'Ada Lovelace', percent: 91.5, earned: true, hasEmail: true },
      { userId: 'u2', name: 'Alan Turing', percent: null, earned: false, hasEmail: false },
    ],
  },
];

/**
 * The LTI tool's pages in the launch's language (issue 45 §2): every page a launch shows, its
 * words, `<html lang>` and percentages in each language, English unchanged with none asked, and
 * axe over each in Chromium. (lti.routes.ts chooses the language from the launch's locale.)
 */
describe('LTI pages in the launch’s language', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('keeps the English words with no language asked', () => {
    const [, , earned, progress, , nothing, instructor] = VIEWS.map((view) => launchPage(view, 'n'));
    expect(earned).toContain('<html lang="en">');
    expect(earned).toContain('You earned “Lab Safety”');
    expect(progress).toContain('You earn this badge when your score reaches 80%.');
    expect(progress).toContain('Your score so far: 72.3%.');
    expect(nothing).toContain('Badges are awarded to learners of the course.');
    expect(instructor).toContain('Scores checked: awarded to 1 learner.');
    expect(instructor).toContain('aria-label="Select Alan Turing"');
  });

  it('words every page in fr, de, es and nl, with the language’s percentages and plurals', () => {
    const expected = {
      fr: {
        earned: 'Vous avez obtenu «\u00a0Lab Safety\u00a0»',
        score: '72,3\u00a0%',
        checked: 'attribué à 1 apprenant.',
      },
      de: {
        earned: 'Sie haben „Lab Safety“ erworben',
        score: '72,3\u00a0%',
        checked: 'an 1 lernende Person vergeben.',
      },
      es: { earned: 'Has obtenido «Lab Safety»', score: '72,3\u00a0%', checked: 'otorgada a 1 estudiante.' },
      nl: { earned: 'Je hebt ‘Lab Safety’ behaald', score: '72,3%', checked: 'uitgereikt aan 1 student.' },
    } as const;
    for (const language of ['fr', 'de', 'es', 'nl'] as const) {
      const pages = VIEWS.map((view) => launchPage(view, 'n', language));
      for (const page of pages) expect(page).toContain(`<html lang="${language}">`);
      expect(pages[2]).toContain(expected[language].earned);
      expect(pages[3]).toContain(expected[language].score);
      expect(pages[5]).toContain(ltiMessages(language).nothing.learnersOnly);
      expect(pages[6]).toContain(expected[language].checked);
      expect(ruleForm('t', { id: 'd1', name: 'Lab Safety' }, 'n', language)).toContain(
        ltiMessages(language).rule.legend,
      );
      expect(autoPostPage('https://lms.example/return', 'jwt', 'n', language)).toContain(
        ltiMessages(language).autoPost.continue,
      );
      expect(registeredPage('Moodle', 'n', language)).toContain(`<html lang="${language}">`);
    }
  });

  for (const language of ['fr', 'de', 'es', 'nl'] as const) {
    it(`passes axe in ${language} on every launch page and the rule form`, async () => {
      const page = await browser.newPage();
      for (const [i, view] of VIEWS.entries()) {
        await page.setContent(launchPage(view, 'n', language));
        expect(await page.getAttribute('html', 'lang')).toBe(language);
        await expectAccessible(page, `${language} ${view.page} ${i}`);
      }
      await page.setContent(ruleForm('t', { id: 'd1', name: 'Lab Safety' }, 'n', language));
      await expectAccessible(page, `${language} rule form`);
      await page.close();
    });
  }
});
