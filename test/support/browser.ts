/**
 * Browser tests: Debian's Chromium (installed by scripts/setup.sh) driven by playwright-core
 * (no browser download of its own). Each launch gets a fresh profile directory. The flags are
 * the ones this machine needs: without the background-networking ones Chromium's own
 * connections are refused and slow every page down.
 *
 * Missing Chromium: the suite is skipped with a message, or fails when
 * PARLEY_TEST_REQUIRE_SERVICES=1 (CI), like the PostgreSQL and Redis suites.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.PARLEY_TEST_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Whether the browser suites can run (throws in CI when Chromium is missing). */
export function haveChromium(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const why = `Chromium not found at ${CHROMIUM_PATH} (npm run setup installs Debian's chromium)`;
  if (process.env.PARLEY_TEST_REQUIRE_SERVICES === '1') throw new Error(`PARLEY_TEST_REQUIRE_SERVICES=1 but ${why}`);
  console.warn(`${why}: browser tests skipped`);
  return false;
}

export interface BrowserOptions {
  /**
   * A WAV file Chromium plays as the microphone (getUserMedia grants a fake device that reads
   * it): for tests of pages that record.
   */
  fakeAudioWav?: string;
  /** Viewport, 1280x800 unless given (a test of the phone layout passes a phone's). */
  viewport?: { width: number; height: number };
}

export interface TestBrowser {
  context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Launches headless Chromium with a fresh profile; close() removes the profile. */
export async function launchBrowser(options: BrowserOptions = {}): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'parley-chromium-'));
  const media = options.fakeAudioWav
    ? ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${options.fakeAudioWav}`]
    : [];
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_FLAGS, ...media],
    viewport: options.viewport ?? { width: 1280, height: 800 },
    timeout: 60_000,
  });
  return {
    context,
    newPage: () => context.newPage(),
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Collects a page's console errors and uncaught exceptions (a test asserts there are none). */
export function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  return errors;
}

/**
 * Keeps a screenshot for a person to look at when PARLEY_TEST_SCREENSHOTS names a folder
 * (tests check pixels themselves; this is for reviewing what the page looked like).
 */
export function keepScreenshot(name: string, png: Buffer): void {
  const dir = process.env.PARLEY_TEST_SCREENSHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.png`), png);
}
