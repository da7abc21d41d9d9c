import { type Browser, chromium } from 'playwright-core';

/**
 * Debian's Chromium (`apt-get install chromium`), headless, for the browser tests, the console
 * screenshots and the bench. CHROMIUM_PATH points elsewhere when it is installed elsewhere.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
