/**
 * The library's search in a real browser (Debian Chromium through playwright-core), on
 * SQLite and PostgreSQL: a live session on the built-in recognizer (jfk.flac at real-time
 * pace through the typed client) is searched from the console while it records, and a word
 * of a final shows as a hit, its match marked, within 2 s of the final; once the recording
 * has ended, clicking the hit plays its audio from the hit's moment. No console errors.
 */
import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../scripts/build-console.js';
import { nodeClient, PCM_BYTES_PER_SECOND, pcmFrames } from '../../src/client/node.js';
import { JFK, liveEngines } from '../realtime/support.js';
import { backends, startTestApp, type TestApp } from '../support/app.js';
import { haveChromium, keepScreenshot, launchBrowser, pageErrors, type TestBrowser } from '../support/browser.js';

const LONG = 360_000;
const FOUND_WITHIN_MS = 2000;

describe.skipIf(!haveChromium() || !existsSync(JFK)).each(backends())('library search in Chromium (%s)', (backend) => {
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    const [app, b] = await Promise.all([
      (async () => {
        await buildConsole();
        return startTestApp({ backend, engines: await liveEngines() });
      })(),
      launchBrowser(),
    ]);
    t = app;
    browser = b;
    page = await browser.newPage();
    errors = pageErrors(page);
  }, LONG);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it(
    'finds a word of a live final within 2 s, marked; after the end a click plays the hit from its moment',
    async () => {
      const k = await t.app.deps.keys.createKey({ name: 'search console' });
      await t.app.deps.billing.grantCredit({ accountId: k.account_id, points: 50, pool: 'account' });
      await page.goto(`${t.url}/`);
      await page.getByLabel('API key').fill(k.api_key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Library', exact: true }).click();
      const box = page.getByLabel('Search everything said');
      await box.waitFor();

      // The first final with a word of 5+ letters: the console searches for it, again and again, until the hit shows.
      let first: { sid: number; word: string; at: number } | null = null;
      let seen: Promise<number> | null = null;
      const findInConsole = async (word: string, sid: number, at: number) => {
        await box.fill(word);
        for (;;) {
          await page.getByRole('button', { name: 'Search', exact: true }).click();
          const hit = page.locator('ol.hits li', { has: page.locator('mark', { hasText: new RegExp(`^${word}$`, 'i') }) });
          if (
            await hit
              .first()
              .isVisible({ timeout: 200 })
              .catch(() => false)
          )
            return performance.now() - at;
          if (performance.now() - at > 10_000) throw new Error(`"${word}" (sentence ${sid}) not shown after 10 s`);
        }
      };
      const parley = nodeClient({ baseUrl: t.url, apiKey: k.api_key });
      const session = await parley.live.start({ type: 'transcribe', transcription_languages: ['en'], name: 'Console search' }, (e) => {
        if (first || e.action !== 'result' || !e.data.origin.is_final) return;
        const word = e.data.origin.text.match(/[a-z]{5,}/i)?.[0];
        if (!word) return;
        first = { sid: e.data.origin.sid, word, at: performance.now() };
        seen = findInConsole(word, first.sid, first.at);
      });
      async function* speechThenSilence() {
        yield* pcmFrames(JFK);
        for (let i = 0; i < 300 && !first; i++) yield new Uint8Array(PCM_BYTES_PER_SECOND / 10);
      }
      await session.streamAudio(speechThenSilence(), { bytesPerSecond: PCM_BYTES_PER_SECOND });
      expect(first, 'a final with a word of 5+ letters').not.toBeNull();
      const lag = await seen!;
      const { word, sid } = first!;
      console.log(`${backend}: "${word}" shown in the console ${Math.round(lag)} ms after its final`);
      expect(lag).toBeLessThan(FOUND_WITHIN_MS);
      expect((await parley.tasks.list({ status: 'all', task_ids: [session.taskId!] }))[0]?.processing_status).toBe('recording');
      keepScreenshot(`search-live-${backend}`, await page.screenshot());

      // Finalizing (M4A encoding) is slow on a loaded machine: a generous bound.
      const done = session.waitFor('task_complete', () => true, { failOnError: false, timeoutMs: 180_000 });
      session.send('stop');
      expect(await done).toMatchObject({ status: 'completed' });
      session.close();

      // Searched again: the stored sentence; a click opens the player at its start.
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const api = (await parley.search({ q: word })) as { data: { task_id: string; sid: number | null; start_ms: number | null }[] };
      const stored = api.data.find((h) => h.task_id === session.taskId && h.sid === sid)!;
      expect(stored.start_ms).not.toBeNull();
      const hit = page.locator('ol.hits li', { has: page.locator('mark', { hasText: new RegExp(`^${word}$`, 'i') }) }).first();
      await hit.getByRole('button').click();
      const player = page.getByRole('region', { name: 'Search hit player' });
      await player.waitFor();
      const from = stored.start_ms! / 1000;
      // Polled with evaluate: waitForFunction would compile a string in the page, which its CSP forbids.
      const position = () => page.evaluate("document.querySelector('.hit-player audio')?.currentTime ?? -1") as Promise<number>;
      await expect.poll(position, { timeout: 60_000, interval: 200 }).toBeGreaterThanOrEqual(from);
      const at = (await page.evaluate("document.querySelector('.hit-player audio').currentTime")) as number;
      expect(at).toBeGreaterThanOrEqual(from);
      expect(at).toBeLessThan(from + 3);
      await page.evaluate("document.querySelector('.hit-player audio').pause()");
      keepScreenshot(`search-player-${backend}`, await page.screenshot());
      expect(errors).toEqual([]);
    },
    LONG,
  );
});
