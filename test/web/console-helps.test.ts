/**
 * The console's help for a newcomer (issue 31) in a real browser (Debian Chromium through
 * playwright-core, the fake microphone playing jfk): the import's whole cost estimate from
 * the server before upload; "Translate into" rows packed at the top of a taller box; the
 * place of a waiting import in the queue (an api-only app: no worker takes it); the Live
 * screen's microphone picker and input level meter; the viewer page's and the OBS overlay's
 * display settings (text size, contrast, captions shown), kept over a reload. Screenshots
 * go to PARLEY_TEST_SCREENSHOTS for a person to look at; the test checks what they show.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../scripts/build-console.js';
import { InProcessBus } from '../../src/bus/in-process.js';
import { classicDiarizerFactory } from '../../src/engines/builtin/diarizer/index.js';
import { pocketsphinxFileFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { liveEngines } from '../realtime/support.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { haveSharedAudio, JFK } from '../support/audio.js';
import { haveChromium, keepScreenshot, launchBrowser, pageErrors, type TestBrowser } from '../support/browser.js';

const LONG = 180_000;

describe.skipIf(!haveChromium() || !haveSharedAudio())('console help in Chromium', () => {
  let t: TestApp;
  let queueApp: TestApp;
  let browser: TestBrowser;
  let page: Page;
  let errors: string[];
  const dir = mkdtempSync(join(tmpdir(), 'parley-console-help-'));
  const wav = join(dir, 'jfk.wav');

  beforeAll(async () => {
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', JFK, '-ar', '48000', '-ac', '1', wav]);
    await buildConsole();
    [t, queueApp, browser] = await Promise.all([
      (async () => startTestApp({ engines: await liveEngines([pocketsphinxFileFactory, classicDiarizerFactory]) }))(),
      // No worker in an api-only process: uploads stay pending, in the queue.
      (async () =>
        startTestApp({ env: { PARLEY_ROLES: 'api' }, bus: new InProcessBus(), engines: await liveEngines([pocketsphinxFileFactory]) }))(),
      launchBrowser({ fakeAudioWav: wav }),
    ]);
    page = await browser.newPage();
    errors = pageErrors(page);
  }, LONG);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await queueApp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function signIn(app: TestApp, points = 500): Promise<string> {
    const k = await app.app.deps.keys.createKey({ name: 'help test key' });
    await app.app.deps.billing.grantCredit({ accountId: k.account_id, points, pool: 'account' });
    await page.goto(`${app.url}/`);
    // A key this origin kept from an earlier test is forgotten: sign in afresh.
    await page.evaluate("localStorage.removeItem('parley.key')");
    await page.reload();
    await page.getByLabel('API key').fill(k.api_key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Screens' }).waitFor();
    return k.api_key;
  }
  const nav = (name: string) => page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name, exact: true }).click();
  const shot = async (p: Page, name: string) => {
    await p.evaluate('document.fonts.ready');
    keepScreenshot(`help-${name}`, await p.screenshot({ fullPage: false }));
  };
  const estimateRows = async () =>
    (await page.getByRole('table', { name: 'Cost estimate' }).locator('tr').allTextContents()).map((r) => r.replace(/\s+/g, ' ').trim());

  it(
    'Imports: the estimate names every part the server prices and follows the form; it equals the server’s',
    async () => {
      const key = await signIn(t);
      await nav('Imports');
      await page.locator('#import-file').setInputFiles(wav);
      // jfk is 11 s: one billed minute of recognition, nothing else asked for yet.
      await expect.poll(estimateRows).toEqual(['Speech recognition (1 min)1.00', 'About1.00 points']);
      await page.getByRole('group', { name: 'Translate into' }).getByLabel('Spanish').check();
      await page.getByLabel('Several speakers', { exact: false }).check();
      await page.getByLabel('From a template').check();
      await expect
        .poll(estimateRows)
        .toEqual(['Speech recognition (1 min)1.00', 'Translation0.50', 'Speakers (diarization)0.50', 'Summary5.00', 'About7.00 points']);
      // The same figure the server gives a client that asks directly.
      const direct = await fetch(`${t.url}/api/v1/imports/check-quota`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ duration_ms: 11_000, translation_languages: ['es'], recognition_mode: 'multi_speaker', summary: true }),
      });
      expect(((await direct.json()) as { data: { estimate: { total: number } } }).data.estimate.total).toBe(7);
      await expect.poll(() => page.getByTestId('estimate').locator('p').textContent()).toMatch(/points available\. The summary is charged/);
      await shot(page, 'imports-estimate');
    },
    LONG,
  );

  it('Imports: "Translate into" rows stay evenly spaced at the top when the box beside it is taller', async () => {
    // A Whisper server's speech list (about 150 languages) makes the neighbouring box tall.
    await page.evaluate("document.querySelector('#import-speech').style.minHeight = '14rem'");
    const box = page.getByRole('group', { name: 'Translate into' });
    const tops = await box.locator('label').evaluateAll((ls) => [...new Set(ls.map((l) => Math.round(l.getBoundingClientRect().top)))]);
    const boxTop = await box.evaluate((b) => b.getBoundingClientRect().top);
    const gaps = tops.slice(1).map((y, i) => y - tops[i]!);
    expect(tops.length).toBeGreaterThan(0);
    expect(tops[0]! - boxTop).toBeLessThan(40); // the first row right under the legend
    for (const g of gaps) expect(g).toBeLessThan(32); // rows one line apart, not spread over the box
    if (gaps.length > 1) expect(Math.max(...gaps) - Math.min(...gaps)).toBeLessThanOrEqual(2);
    await page.locator('#new-import').scrollIntoViewIfNeeded();
    await shot(page, 'imports-translate-into');
    await page.evaluate("document.querySelector('#import-speech').style.minHeight = ''");
  });

  it(
    'Imports: waiting imports say where they are in the queue (no worker: they wait)',
    async () => {
      await signIn(queueApp);
      await nav('Imports');
      for (let i = 0; i < 2; i++) {
        await page.locator('#import-file').setInputFiles(wav);
        await page.getByRole('table', { name: 'Cost estimate' }).waitFor();
        const [res] = await Promise.all([
          page.waitForResponse((r) => r.url().endsWith('/api/v1/imports') && r.request().method() === 'POST'),
          page.getByRole('button', { name: 'Import', exact: true }).click(),
        ]);
        expect(res.status(), await res.text()).toBe(202);
        await expect.poll(() => page.locator('li.import').count()).toBe(i + 1);
      }
      // Newest first: the second upload is 2nd in the queue, the first is next.
      const places = page.locator('li.import [data-testid="queue-position"]');
      await expect
        .poll(() => places.allTextContents())
        .toEqual(['Waiting in the queue: 2nd, 1 import ahead.', 'Waiting in the queue: next to start when a worker is free.']);
      expect(await page.locator('li.import .badge').allTextContents()).toEqual(['pending', 'pending']);
      await page.locator('#import-list').scrollIntoViewIfNeeded();
      await shot(page, 'imports-queue');
    },
    LONG,
  );

  it(
    'Live: the microphone picker lists the inputs, the choice is kept; the level meter moves while testing and recording',
    async () => {
      await signIn(t);
      await nav('Live');
      const picker = page.getByRole('combobox', { name: 'Microphone', exact: true });
      await picker.waitFor();
      const meter = page.getByRole('meter', { name: 'Input level' });
      expect(Number(await meter.getAttribute('data-level'))).toBe(0);
      await page.getByRole('button', { name: 'Test microphone' }).click();
      // Once allowed, the inputs have their names (Chromium's fake devices here).
      await expect.poll(async () => (await picker.locator('option').allTextContents()).length).toBeGreaterThan(1);
      const names = await picker.locator('option').allTextContents();
      expect(names[0]).toBe('System default');
      expect(names.slice(1).every((n) => n.length > 0 && !/^Microphone \d+$/.test(n))).toBe(true);
      // jfk plays into the fake input: the meter rises above silence.
      await expect.poll(async () => Number(await meter.getAttribute('data-level')), { timeout: 30_000 }).toBeGreaterThan(0.3);
      const chosen = names.at(-1) as string;
      await picker.selectOption({ label: chosen });
      await expect.poll(async () => Number(await meter.getAttribute('data-level')), { timeout: 30_000 }).toBeGreaterThan(0.3);
      await shot(page, 'live-microphone-test');
      await page.getByRole('button', { name: 'Stop test' }).click();
      await expect.poll(async () => Number(await meter.getAttribute('data-level'))).toBe(0);
      // Kept over a reload (this browser's localStorage).
      await page.reload();
      await page.getByRole('heading', { name: 'Live', level: 1 }).waitFor();
      await expect.poll(async () => picker.locator('option:checked').textContent()).toBe(chosen);
      // Recording from it: the meter reads the recording's input.
      await page.getByRole('button', { name: 'Start recording' }).click();
      await page.getByRole('button', { name: 'Stop' }).waitFor({ timeout: 60_000 });
      await expect.poll(async () => Number(await meter.getAttribute('data-level')), { timeout: 30_000 }).toBeGreaterThan(0.3);
      expect(await picker.isDisabled()).toBe(true);
      await page.locator('.caption.final').first().waitFor({ timeout: LONG });
      await shot(page, 'live-recording-level');
      await page.getByRole('button', { name: 'Stop' }).click();
      await page.getByRole('link', { name: 'Open the recording in the library' }).waitFor({ timeout: LONG });
    },
    LONG * 2,
  );

  it(
    'Viewer page and overlay: text size, contrast and captions shown, kept over a reload',
    async () => {
      await nav('Broadcasts');
      await page.getByLabel('Name', { exact: true }).fill('Display test');
      await page.getByRole('button', { name: 'Create broadcast' }).click();
      const url = (await page.getByTestId('viewer-link').textContent()) as string;
      await page.getByRole('button', { name: /Start in standby/ }).click();
      await page.getByRole('button', { name: 'Go live' }).click();
      await page.getByRole('button', { name: 'Stop broadcast' }).waitFor();

      const viewer = await browser.newPage();
      const viewerErrors = pageErrors(viewer);
      await viewer.goto(url);
      // jfk loops into the microphone: wait for a few final captions.
      await expect.poll(() => viewer.locator('#captions li[data-final="true"]').count(), { timeout: LONG }).toBeGreaterThan(2);
      const style = (sel: string, prop: string) =>
        viewer.evaluate(`getComputedStyle(document.querySelector(${JSON.stringify(sel)})).${prop}`) as Promise<string>;
      const normalSize = Number.parseFloat(await style('#captions .source', 'fontSize'));
      expect(await style('html', 'backgroundColor')).toBe('rgb(255, 255, 255)');
      await shot(viewer, 'viewer-default');

      await viewer.getByText('Display', { exact: true }).click();
      await viewer.getByLabel('Text size').selectOption({ label: 'Very large' });
      await viewer.getByLabel('Contrast').selectOption({ label: 'Dark (white on black)' });
      await viewer.getByLabel('Captions shown').selectOption({ label: 'Last one' });
      const check = async () => {
        expect(Number.parseFloat(await style('#captions .source', 'fontSize'))).toBeCloseTo(normalSize * 2, 0);
        expect(await style('html', 'backgroundColor')).toBe('rgb(0, 0, 0)');
        expect(await style('html', 'color')).toBe('rgb(255, 255, 255)');
        await expect.poll(() => viewer.locator('#captions li:visible').count()).toBe(1);
        // The one shown is the newest (captions keep arriving: read both at once, until they settle).
        await expect
          .poll(() =>
            viewer.evaluate(`(() => {
              const items = [...document.querySelectorAll('#captions li')];
              const shown = items.filter((li) => li.checkVisibility());
              return shown.length === 1 && shown[0] === items[items.length - 1];
            })()`),
          )
          .toBe(true);
      };
      await check();
      await shot(viewer, 'viewer-very-large-dark-last-one');
      await viewer.reload();
      await expect.poll(() => viewer.locator('#captions li').count(), { timeout: LONG }).toBeGreaterThan(1);
      await check();
      expect(await viewer.getByLabel('Text size', { exact: true }).inputValue()).toBe('200');
      await viewer.getByText('Display', { exact: true }).click();
      await viewer.getByLabel('Contrast').selectOption({ label: 'High (black on white)' });
      expect(await style('html', 'backgroundColor')).toBe('rgb(255, 255, 255)');
      expect(await style('#captions .meta', 'color')).toBe('rgb(0, 0, 0)'); // no grey text
      await shot(viewer, 'viewer-high-contrast');

      // The overlay: the controls show only under the pointer; size, contrast, lines; kept; reset.
      const overlay = await browser.newPage();
      const overlayErrors = pageErrors(overlay);
      await overlay.goto(`${url}/overlay?size=36&lines=2`);
      await expect.poll(() => overlay.locator('#lines .line').count(), { timeout: LONG }).toBeGreaterThan(0);
      const toggle = overlay.getByRole('button', { name: 'Display' });
      await overlay.mouse.move(0, 0);
      await overlay.mouse.move(-1, -1);
      expect(await overlay.evaluate("getComputedStyle(document.getElementById('settings-area')).visibility")).toBe('hidden');
      await overlay.mouse.move(640, 400);
      await toggle.click();
      await overlay.getByLabel('Text size').selectOption('64');
      await overlay.getByLabel('Contrast').selectOption('high');
      await overlay.getByLabel('Lines').selectOption('1');
      const overlayState = () =>
        overlay.evaluate(`(() => {
          const line = document.querySelector('#lines .line.source');
          const box = getComputedStyle(document.getElementById('lines'));
          const sids = document.querySelectorAll('#lines .line.source').length;
          return { size: line ? getComputedStyle(line).fontSize : null, box: box.backgroundColor, sources: sids };
        })()`) as Promise<{ size: string | null; box: string; sources: number }>;
      // The source line is 0.8em of the chosen size; one sentence shown; on solid black.
      await expect.poll(overlayState).toEqual({ size: `${64 * 0.8}px`, box: 'rgb(0, 0, 0)', sources: 1 });
      await shot(overlay, 'overlay-64px-high-one-line');
      await overlay.reload();
      await expect.poll(overlayState, { timeout: LONG }).toEqual({ size: `${64 * 0.8}px`, box: 'rgb(0, 0, 0)', sources: 1 });
      await overlay.mouse.move(640, 400);
      await overlay.getByRole('button', { name: 'Display' }).click();
      await overlay.getByRole('button', { name: 'Use the link’s settings' }).click();
      await expect.poll(async () => (await overlayState()).size).toBe(`${36 * 0.8}px`);
      expect(await overlay.getByLabel('Text size').inputValue()).toBe('36');
      await overlay.mouse.move(-1, -1);

      await page.getByRole('button', { name: 'Stop broadcast' }).click();
      await page.locator('#manage .badge.status-ended').waitFor({ timeout: LONG });
      expect(viewerErrors).toEqual([]);
      expect(overlayErrors).toEqual([]);
      await viewer.close();
      await overlay.close();
    },
    LONG * 2,
  );

  it('logged no console errors', () => {
    expect(errors.filter((e) => !e.includes('401 (Unauthorized)'))).toEqual([]);
  });
});
