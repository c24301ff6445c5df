/**
 * The console at / in a real browser (Debian Chromium through playwright-core, the fake
 * microphone playing jfk as a WAV) against the real app with the built-in engines. One page
 * goes through what a person does: a wrong key is refused, then sign-in; Account; an import
 * whose progress bar reaches 100 % from the progress stream; the Library's export (the
 * downloaded bytes) and the player seeking by sentence; live captions of jfk with Spanish
 * beside them; a broadcast with its viewer link and QR code. Each screen's screenshot is
 * decoded and checked (the header band and content drawn), its visible elements asserted,
 * and the page logs no console errors. Waits are on what the page shows, never sleeps.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../scripts/build-console.js';
import { importFile, nodeClient } from '../../src/client/node.js';
import { classicDiarizerFactory } from '../../src/engines/builtin/diarizer/index.js';
import { pocketsphinxFileFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { liveEngines } from '../realtime/support.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { haveSharedAudio, JFK, STEREO } from '../support/audio.js';
import { haveChromium, keepScreenshot, launchBrowser, pageErrors, type TestBrowser } from '../support/browser.js';
import { decodePng, regionStats } from '../support/png.js';

/** Words of jfk PocketSphinx gets right here (any one will do). */
const JFK_WORDS = /\b(ask|country|fellow|americans|you|your|what|can|do)\b/i;
const LONG = 180_000;

describe.skipIf(!haveChromium() || !haveSharedAudio())('console in Chromium', () => {
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;
  let errors: string[];
  let key: string;
  const dir = mkdtempSync(join(tmpdir(), 'parley-console-'));
  const wav = join(dir, 'jfk.wav');

  beforeAll(async () => {
    // The fake microphone and the import both use jfk as a WAV (48 kHz mono: what a microphone gives).
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', JFK, '-ar', '48000', '-ac', '1', wav]);
    const [app, b] = await Promise.all([
      (async () => {
        await buildConsole(); // the bundle under test is built from this checkout's sources
        return startTestApp({ engines: await liveEngines([pocketsphinxFileFactory, classicDiarizerFactory]) });
      })(),
      launchBrowser({ fakeAudioWav: wav }),
    ]);
    t = app;
    browser = b;
    const k = await t.app.deps.keys.createKey({ name: 'console test key' });
    await t.app.deps.billing.grantCredit({ accountId: k.account_id, points: 500, pool: 'account' });
    key = k.api_key;
    page = await browser.newPage();
    errors = pageErrors(page);
  }, LONG);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const nav = (name: string) => page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name, exact: true }).click();

  /**
   * Screenshot of the screen: kept for review, decoded, its header band and main area drawn;
   * and every control on it has a name a screen reader reads (a label, aria-label or text).
   */
  async function screenshot(name: string) {
    const unnamed = await page.evaluate(`[...document.querySelectorAll('input, select, textarea, button')]
      .filter((el) => el.type !== 'hidden' && !(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !el.textContent.trim())
      .map((el) => el.outerHTML.slice(0, 80))`);
    expect(unnamed, `${name}: controls without a name`).toEqual([]);
    await page.evaluate('document.fonts.ready');
    const png = await page.screenshot({ fullPage: false });
    keepScreenshot(`console-${name}`, png);
    const img = decodePng(png);
    expect([img.width, img.height]).toEqual([1280, 800]);
    // The dark header band across the top (#15233b), the light page under it.
    const header = regionStats(img, { x: 0, y: 0, width: 1280, height: 40 }, [0x15, 0x23, 0x3b]);
    expect(header.differing / header.total).toBeLessThan(0.5);
    const main = regionStats(img, { x: 0, y: 80, width: 1280, height: 700 }, [0xf4, 0xf5, 0xf7]);
    // Text and controls (dark on the light page and its white cards) cover part of it.
    expect(main.differing / main.total, `${name}: content drawn`).toBeGreaterThan(0.01);
  }

  it('refuses a wrong key with the server message, then signs in', async () => {
    await page.goto(`${t.url}/`);
    await page.getByLabel('API key').fill(`svc_${'x'.repeat(32)}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('auth_invalid_api_key');
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Screens' }).waitFor();
    expect(await page.locator('.plan-badge').textContent()).toBe('500.00 points');
    // The refused key's 401 is logged by the browser itself ("Failed to load resource"); from
    // here on the page must log no error at all.
    expect(errors.every((e) => e.includes('401 (Unauthorized)'))).toBe(true);
    errors.splice(0);
  });

  it('Account: plan, credit lots, usage chart and key settings', async () => {
    await nav('Account');
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
    await page.getByRole('cell', { name: '500.00' }).waitFor();
    expect(await page.locator('dd.big').textContent()).toBe('500.00 points');
    await page.getByRole('img', { name: /Points used per day/ }).waitFor();
    expect(await page.getByText('console test key').count()).toBe(1);
    expect(await page.getByText('No usage yet.').count()).toBe(1);
  });

  it(
    'Imports: a dropped-in file with a Spanish translation completes, its progress bar at 100 %',
    async () => {
      await nav('Imports');
      await page.getByText('Drop an audio file here').waitFor();
      // The speech picker lists what the engines here serve for imports (PocketSphinx: English), as GET /languages says.
      const offer = (
        (await (await fetch(`${t.url}/api/v1/languages`, { headers: { 'x-api-key': key } })).json()) as {
          data: { import: string[]; names: Record<string, string> };
        }
      ).data;
      const speech = page.getByRole('group', { name: 'Speech languages' });
      await speech.getByLabel('English (United States)').waitFor();
      expect((await speech.locator('label').allTextContents()).map((l) => l.trim())).toEqual(
        offer.import.map((c: string) => offer.names[c]),
      );
      expect(await speech.getByLabel('German', { exact: false }).count()).toBe(0);
      expect(await speech.getByLabel('English (United States)').isChecked()).toBe(true);
      await page.locator('#import-file').setInputFiles(wav);
      await page.getByText('jfk.wav').first().waitFor();
      await page.getByRole('group', { name: 'Translate into' }).getByLabel('Spanish').check();
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      const item = page.locator('li.import').first();
      await item.locator('progress').waitFor();
      // Progress comes from the stream: the bar's value moves to 100 and the link to the task appears.
      await item.getByRole('link', { name: 'Open in the library' }).waitFor({ timeout: LONG });
      expect(await item.locator('progress').getAttribute('value')).toBe('100');
      expect(await item.locator('.badge').textContent()).toBe('completed');
      await screenshot('imports');
    },
    LONG,
  );

  it(
    'Library: the task is listed; its export downloads the SRT bytes; the player seeks by sentence; retranslation and summary stream in',
    async () => {
      await nav('Library');
      await page.getByLabel('Search titles').fill('jfk');
      const link = page.getByRole('link', { name: 'jfk', exact: true });
      await link.waitFor();
      await screenshot('library');
      await link.click();
      await page.getByRole('heading', { name: 'Transcript' }).waitFor();
      await page.locator('ol.sentences li').nth(1).waitFor();

      // Export: SRT with the recognized words, then the Spanish text.
      await page.getByLabel('Format').selectOption('srt');
      const [srt] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
      const srtText = readFileSync((await srt.path()) as string, 'utf8');
      expect(srtText).toMatch(/^1\r?\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}/);
      expect(srtText).toMatch(JFK_WORDS);
      expect(srt.suggestedFilename()).toMatch(/\.srt$/);
      await page.getByLabel('Text', { exact: true }).selectOption('es');
      await page.getByLabel('Format').selectOption('txt');
      const [txt] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
      const spanish = readFileSync((await txt.path()) as string, 'utf8');
      expect(spanish).toMatch(/\b(y|qué|país|para|puede)\b/i);
      await page.getByLabel('Format').selectOption('m4a');
      const [m4a] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
      expect(
        readFileSync((await m4a.path()) as string)
          .subarray(4, 8)
          .toString('latin1'),
      ).toBe('ftyp');

      // The player: the audio loads, a click on the second sentence seeks to its start and highlights it.
      await page.waitForFunction("(document.querySelector('audio')?.readyState ?? 0) >= 1", undefined, { timeout: 60_000 });
      const second = page.locator('ol.sentences li').nth(1);
      const start = (await second.locator('.time').textContent()) as string;
      const [m, s] = start.split(':').map(Number);
      await second.locator('button.seek').click();
      await expect.poll(() => second.getAttribute('aria-current')).toBe('true');
      const at = (await page.evaluate("document.querySelector('audio').currentTime")) as number;
      expect(at).toBeGreaterThanOrEqual(m! * 60 + s!);
      expect(at).toBeLessThan(m! * 60 + s! + 3);
      expect(await page.locator('ol.sentences li[aria-current="true"]').count()).toBe(1);
      await page.evaluate("document.querySelector('audio').pause()");
      await screenshot('task');

      // Retranslation into the first target reachable from English the task lacks (French: Apertium
      // has English to French; common languages come first), streamed beside the text.
      expect(await page.getByLabel('Into').inputValue()).toBe('fr');
      await page.getByRole('button', { name: 'Translate', exact: true }).click();
      await page.getByText(/\d+ sentences translated into French/).waitFor({ timeout: LONG });
      const sentences = await page.locator('ol.sentences li').count();
      await expect.poll(() => page.locator('ol.sentences .translation[lang="fr"]').count(), { timeout: 30_000 }).toBe(sentences);
      expect(await page.getByLabel('Translation shown beside the text').inputValue()).toBe('fr');
      // The summary's language: the transcript's, or one a translator here reaches from it (GET /languages).
      const summaryLanguages = await page.locator('#summary-language option').evaluateAll((os) => os.map((o) => o.getAttribute('value')));
      const reachable = (
        (await (await fetch(`${t.url}/api/v1/languages`, { headers: { 'x-api-key': key } })).json()) as {
          data: { translation: Record<string, string[]> };
        }
      ).data.translation['en-US'];
      expect(summaryLanguages).toEqual(['en-US', ...(reachable ?? [])]);
      // The summary, written by the built-in summarizer and saved.
      await page.getByRole('button', { name: 'Summarize' }).click();
      await page.getByRole('button', { name: 'Regenerate' }).waitFor({ timeout: LONG });
      expect(await page.locator('#summary p.summary').textContent()).toMatch(JFK_WORDS);
    },
    LONG,
  );

  it(
    'Library: the speakers of a two-voice recording: one renamed, then merged into the other',
    async () => {
      // Seeded through the typed client: the two voices of stereo_diarization.wav mixed to mono.
      const mono = join(dir, 'two-voices.wav');
      execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', STEREO, '-ac', '1', mono]);
      const client = nodeClient({ baseUrl: t.url, apiKey: key });
      const created = await client.imports.create({
        ...(await importFile(mono)),
        transcription_languages: ['en-US'],
        recognition_mode: 'multi_speaker',
      });
      const { task_id } = await client.imports.waitFor(created.import_id);
      await page.goto(`${t.url}/#/library/${task_id}`);
      await page.getByRole('heading', { name: 'Speakers' }).waitFor();
      const labels = () => page.locator('ol.sentences .speaker').allTextContents();
      expect(new Set(await labels())).toEqual(new Set(['Speaker 1', 'Speaker 2']));
      await page.getByLabel('Speaker 1', { exact: true }).fill('Alice');
      await page.locator('#speakers li').first().getByRole('button', { name: 'Rename' }).click();
      await page.getByText('Speaker 1 is now Alice.').waitFor();
      await expect.poll(async () => new Set(await labels())).toEqual(new Set(['Alice', 'Speaker 2']));
      await page.getByLabel('Merge speaker').selectOption({ label: 'Speaker 2' });
      await page.getByLabel('into', { exact: true }).selectOption({ label: 'Alice' });
      await page.getByRole('button', { name: 'Merge' }).click();
      await page.getByText(/Merged into Alice \(\d+ sentences\)/).waitFor();
      await expect.poll(async () => new Set(await labels())).toEqual(new Set(['Alice']));
    },
    LONG,
  );

  it(
    'Live: the microphone (jfk) gives captions, interims in grey italics, finals with Spanish beside them; pause, resume, stop',
    async () => {
      await nav('Live');
      await page.getByRole('heading', { name: 'Live', level: 1 }).waitFor();
      expect(await page.getByRole('group', { name: 'Translate into' }).getByLabel('Spanish').isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Start recording' }).click();
      // An interim shows while a sentence is being spoken: grey italics, unlike a final.
      const interim = page.locator('.caption.interim .source').first();
      await interim.waitFor({ timeout: LONG });
      const style = (sel: string) =>
        page.evaluate(
          `(() => { const s = getComputedStyle(document.querySelector(${JSON.stringify(sel)})); return [s.fontStyle, s.color]; })()`,
        ) as Promise<[string, string]>;
      const [interimStyle, interimColor] = await style('.caption.interim .source');
      expect(interimStyle).toBe('italic');
      // A final with its words and the Spanish translation beside it.
      const final = page.locator('.caption.final').filter({ hasText: JFK_WORDS }).first();
      await final.waitFor({ timeout: LONG });
      await final.locator('.translation[lang="es"]').waitFor({ timeout: LONG });
      expect(((await final.locator('.translation[lang="es"]').textContent()) ?? '').length).toBeGreaterThan(3);
      const [finalStyle, finalColor] = await style('.caption.final .source');
      expect(finalStyle).toBe('normal');
      expect(finalColor).not.toBe(interimColor);
      // The meters: time runs, the recording's points show.
      await expect.poll(() => page.getByRole('timer', { name: 'Elapsed time' }).textContent(), { timeout: 30_000 }).not.toBe('0:00');
      await expect.poll(() => page.getByTestId('burn').textContent(), { timeout: 30_000 }).toMatch(/^\d+\.\d\d$/);
      await screenshot('live');
      await page.getByRole('button', { name: 'Pause' }).click();
      await page.getByRole('button', { name: 'Resume' }).click();
      await page.getByRole('button', { name: 'Stop' }).click();
      await page.getByRole('link', { name: 'Open the recording in the library' }).waitFor({ timeout: LONG });
      // No interim is left once the recording ended.
      expect(await page.locator('.caption.interim').count()).toBe(0);
    },
    LONG * 2,
  );

  it(
    'Broadcasts: create, the viewer link from the token with its QR code, go live, a viewer counted, announce, stop',
    async () => {
      await nav('Broadcasts');
      await page.getByLabel('Name', { exact: true }).fill('Town hall');
      await page.getByRole('button', { name: 'Create broadcast' }).click();
      const link = page.getByTestId('viewer-link');
      await link.waitFor();
      const url = (await link.textContent()) as string;
      expect(url).toMatch(new RegExp(`^${t.url}/b/[a-z0-9]{4}$`));
      expect(await link.getAttribute('href')).toBe(url);
      expect(url).not.toContain('/broadcast/'); // never the share_url (the caption stream)
      // The QR code draws exactly the modules of that link's QR matrix.
      const { encode } = await import('uqr');
      const modules = encode(url, { ecc: 'M', border: 2 }).data.flat().filter(Boolean).length;
      const d = (await page
        .getByRole('img', { name: `QR code of the viewer page ${url}` })
        .locator('path')
        .getAttribute('d')) as string;
      expect(d.match(/M/g)?.length).toBe(modules);

      await page.getByRole('button', { name: /Start in standby/ }).click();
      await page.getByRole('button', { name: 'Go live' }).click();
      await page.getByRole('button', { name: 'Stop broadcast' }).waitFor();
      const viewer = await browser.newPage();
      await viewer.goto(url);
      await expect.poll(() => page.getByTestId('viewers').textContent(), { timeout: 60_000 }).toBe('1');
      expect(await page.getByTestId('queue').textContent()).toBe('0');
      await page.locator('#manage .caption.final').first().waitFor({ timeout: LONG });
      await page.getByLabel('Announcement to viewers').fill('Welcome to the town hall');
      await page.getByRole('button', { name: 'Announce' }).click();
      await viewer.getByText('Welcome to the town hall').waitFor({ timeout: 60_000 });
      await screenshot('broadcasts');
      await page.getByRole('button', { name: 'Stop broadcast' }).click();
      await page.locator('#manage .badge.status-ended').waitFor({ timeout: LONG });
      await viewer.close();
    },
    LONG * 2,
  );

  it('Account after use: the import, the recording and the broadcast in the usage list, the day of use as the chart’s tallest bar', async () => {
    await nav('Account');
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
    const rows = page.locator('#usage tbody tr');
    await expect.poll(async () => (await rows.allTextContents()).join('\n'), { timeout: 60_000 }).toContain('broadcast');
    const text = (await rows.allTextContents()).join('\n');
    for (const type of ['import', 'recording', 'broadcast']) expect(text).toContain(type);
    // Today's bar is the last one, and the tallest (all use happened today).
    const heights = await page.locator('#usage svg rect.bar').evaluateAll((bars) => bars.map((b) => Number(b.getAttribute('height'))));
    expect(heights).toHaveLength(14);
    expect(heights.at(-1)).toBe(Math.max(...heights));
    expect(heights.at(-1)).toBeGreaterThan(100);
    const credit = Number(((await page.locator('dd.big').textContent()) as string).replace(' points', ''));
    expect(credit).toBeLessThan(500);
    await page.locator('#usage').scrollIntoViewIfNeeded();
    await screenshot('account'); // the header stays on top while the page scrolls
  });

  it('fits a phone: no screen is wider than 390 px (tables scroll inside their cards)', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const screen of ['Live', 'Library', 'Imports', 'Broadcasts', 'Account']) {
      await nav(screen);
      await page.getByRole('heading', { name: screen, level: 1 }).waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth'), screen).toBeLessThanOrEqual(390);
    }
    keepScreenshot('console-phone-account', await page.screenshot({ fullPage: true }));
  });

  it('logged no console errors', () => {
    expect(errors).toEqual([]);
  });
});
