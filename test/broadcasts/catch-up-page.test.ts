/**
 * The catch-up summary on the viewer page (/b/{token}) in a real browser (Debian Chromium
 * through playwright-core) against the real app and engines (PocketSphinx, Apertium, the
 * extractive summarizer): a host has streamed the first minute of the long recording; a
 * phone-sized page that opens then shows "So far (mm:ss–mm:ss)" above the captions, open, in
 * Spanish; the viewer collapses and opens it; the captions that follow appear below it.
 */
import { detect } from 'tinyld';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, connect, type Msg, startLiveApp, streamPcm, vt } from '../realtime/support.js';
import { api, type TestApp } from '../support/app.js';
import { haveSharedAudio } from '../support/audio.js';
import { haveChromium, keepScreenshot, launchBrowser, pageErrors, type TestBrowser } from '../support/browser.js';
import { longRecording, PCM_BYTES_PER_SECOND } from '../support/long-recording.js';
import { newBroadcast, realKey } from './support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!haveChromium() || !haveSharedAudio())('the catch-up summary on the viewer page (Chromium)', () => {
  let t: TestApp;
  let browser: TestBrowser;
  let key: string;
  let host: Client | null = null;

  beforeAll(async () => {
    [t, browser] = await Promise.all([
      startLiveApp('sqlite', {
        env: {
          PARLEY_BROADCAST_CATCH_UP_INTERVAL_SECONDS: '1',
          PARLEY_BROADCAST_CATCH_UP_MIN_NEW_CHARS: '1',
          PARLEY_BROADCAST_HOST_LEASE_SECONDS: '600',
        },
      }),
      launchBrowser({ viewport: { width: 390, height: 844 } }),
    ]);
    const k = await realKey(t);
    key = k.key;
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 200, pool: 'account' });
  });
  afterAll(async () => {
    await browser?.close();
    if (host) {
      host.send(vt('stop'));
      await host.next((m) => m.data?.action === 'task_complete', 120_000).catch(() => {});
      host.ws.close();
    }
    await t?.close();
  });

  it('a late joiner sees what was said so far above the captions, in its language, and can fold it', async () => {
    const b = await newBroadcast(t, key, { name: 'Readings', transcription_languages: ['en'], translation_languages: ['es'] });
    const ticket = await api(t.url, 'POST', '/api/v1/auth/ticket', { key });
    host = await connect(t, [`ticket.${ticket.body.data.ticket}`]);
    host.send(vt('start', { type: 'broadcast', broadcast_token: b.token, audio_format: 'pcm' }));
    expect((await host.next((m: Msg) => m.data?.action === 'session_started' || m.type === 'error', 30_000)).data.action).toBe(
      'session_started',
    );
    const audio = longRecording(120);
    const heard = () => host!.messages.filter((m) => m.data?.action === 'result' && m.data.origin?.is_final && m.data.origin.text);
    // The first minute, then until two sentences were heard and the summary had a second to be written.
    await streamPcm(host, audio.subarray(0, 60 * PCM_BYTES_PER_SECOND), 4);
    for (const end = Date.now() + 120_000; heard().length < 2 && Date.now() < end; ) await sleep(500);
    expect(heard().length).toBeGreaterThanOrEqual(2);
    await sleep(5_000);

    const page = await browser.newPage();
    const errors = pageErrors(page);
    await page.goto(`${t.url}/b/${b.token}?lang=es`);
    await page.waitForSelector('#catch-up:not([hidden])', { timeout: 30_000 });
    // Open on arrival, titled with the time it covers, above the captions.
    expect(await page.$eval('#catch-up', (d) => (d as unknown as { open: boolean }).open)).toBe(true);
    expect(await page.textContent('#catch-up-title')).toMatch(/^So far \(\d\d:\d\d–\d\d:\d\d\)$/);
    const text = (await page.textContent('#catch-up-text')) ?? '';
    expect(text.trim().length).toBeGreaterThan(10);
    expect(detect(text)).toBe('es');
    expect(await page.getAttribute('#catch-up-text', 'lang')).toBe('es');
    const panel = (await page.$('#catch-up'))!;
    keepScreenshot('viewer-catch-up', await panel.screenshot());

    // Folded and unfolded by the viewer (a click on its title), the summary text hidden then shown.
    await page.click('#catch-up-title');
    expect(await page.$eval('#catch-up', (d) => (d as unknown as { open: boolean }).open)).toBe(false);
    expect(await page.isVisible('#catch-up-text')).toBe(false);
    await page.focus('#catch-up-title');
    await page.keyboard.press('Enter');
    expect(await page.$eval('#catch-up', (d) => (d as unknown as { open: boolean }).open)).toBe(true);
    expect(await page.isVisible('#catch-up-text')).toBe(true);

    // Then the captions: the latest finals and live ones, below the summary.
    const streaming = streamPcm(host, audio.subarray(60 * PCM_BYTES_PER_SECOND), 4);
    await page.waitForSelector('#captions li[data-final="true"] .translation[lang="es"]', { timeout: 90_000 });
    // Read in one snapshot: the page scrolls itself to the newest caption as captions arrive
    // (and drops the oldest), so boxes read one after the other, or the first caption's, can move.
    const layout = (await page.evaluate(
      "({ summaryBottom: document.querySelector('#catch-up').getBoundingClientRect().bottom, listTop: document.querySelector('#captions').getBoundingClientRect().top })",
    )) as { summaryBottom: number; listTop: number };
    expect(layout.listTop).toBeGreaterThanOrEqual(layout.summaryBottom - 1);
    await streaming;
    keepScreenshot('viewer-catch-up-page', await page.screenshot({ fullPage: true }));
    expect(errors).toEqual([]);
  }, 400_000);
});
