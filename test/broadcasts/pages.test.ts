/**
 * The broadcast pages in a real browser (Debian Chromium through playwright-core) against the
 * real app with real engines (PocketSphinx, Apertium, eSpeak NG): a host streams jfk.flac at
 * real-time pace over the WebSocket while the viewer page (/b/{token}) and the OBS overlay
 * (/b/{token}/overlay) show its captions and translations. Checked as a user sees them: the
 * text on the page, interim then final styling, a language switch, the password prompt, the
 * queue, the end; screenshots decoded and checked (a non-empty caption region; the overlay's
 * background fully transparent).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viewerTopic } from '../../src/broadcasts/viewer-events.js';
import { loadConfig } from '../../src/config.js';
import { apertiumFactory } from '../../src/engines/builtin/apertium.js';
import { espeakFactory } from '../../src/engines/builtin/espeak.js';
import { pocketsphinxStreamingFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { AnyEngine } from '../../src/engines/types.js';
import { createLogger } from '../../src/platform/logging.js';
import { type Client, connect, event, jfkPcm, type Msg, streamPcm, vt } from '../realtime/support.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { haveChromium, keepScreenshot, launchBrowser, pageErrors, type TestBrowser } from '../support/browser.js';
import { decodePng, regionStats } from '../support/png.js';
import { newBroadcast, onAir, openViewer, randomIp, realKey, type ViewerClient, viewer } from './support.js';

/** Words of the JFK sentence PocketSphinx gets right on this recording (any one will do). */
const JFK_WORDS = /\b(ask|country|fellow|americans|you|your|what|can|do)\b/i;

async function engines(): Promise<EngineRegistry> {
  const ctx = { config: loadConfig({}), modelsDir: '/nowhere', logger: createLogger('silent') };
  const out: AnyEngine[] = [];
  for (const f of [pocketsphinxStreamingFactory, apertiumFactory, espeakFactory]) {
    const e = await f.create(ctx as never);
    if ('unavailable' in e) throw new Error(`${f.id} unavailable: ${e.unavailable}`);
    out.push(e as AnyEngine);
  }
  return EngineRegistry.fromEngines(out);
}

describe.skipIf(!haveChromium())('broadcast pages in Chromium (viewer page and OBS overlay)', () => {
  let t: TestApp;
  let browser: TestBrowser;
  let key: string;
  const pcm = jfkPcm();

  beforeAll(async () => {
    // X-Forwarded-For is believed so a page can be a source of its own (abuse limits); without it, the socket's address.
    [t, browser] = await Promise.all([startTestApp({ engines: await engines(), env: { PARLEY_TRUST_PROXY: '1' } }), launchBrowser()]);
    const k = await realKey(t);
    key = k.key;
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 200, pool: 'account' });
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.allSettled(finishing);
    await t?.close();
  });

  async function host(token: string, phase: 'live' | 'standby' = 'live', extra: Record<string, unknown> = {}): Promise<Client> {
    const r = await api(t.url, 'POST', '/api/v1/auth/ticket', { key });
    const cl = await connect(t, [`ticket.${r.body.data.ticket}`]);
    cl.send(vt('start', { type: 'broadcast', broadcast_token: token, audio_format: 'pcm', broadcast_phase: phase, ...extra }));
    const m = await cl.next((x: Msg) => x.data?.action === 'session_started' || x.type === 'error', 30_000);
    if (m.type === 'error') throw new Error(`host start refused: ${JSON.stringify(m.data)}`);
    return cl;
  }
  /** Recordings being finalized after a stop: awaited before the app closes, not by each test. */
  const finishing: Promise<unknown>[] = [];
  /** Stops the broadcast; viewers see the end at once, the recording finishes in the background. */
  function stop(cl: Client) {
    cl.send(vt('stop'));
    finishing.push(cl.next((m) => m.data?.action === 'task_complete', 90_000).finally(() => cl.ws.close()));
  }

  it('viewer page and overlay: captions and translations of jfk.flac, interim then final, language switch, screenshots, the end', async () => {
    const b = await newBroadcast(t, key, { name: 'JFK town hall', transcription_languages: ['en'], translation_languages: ['es', 'fr'] });
    // The viewer on a phone-sized page; the overlay at a broadcast's 1280x720.
    const viewerPage = await browser.newPage();
    await viewerPage.setViewportSize({ width: 390, height: 844 });
    const errors = pageErrors(viewerPage);
    await viewerPage.goto(`${t.url}/b/${b.token}?lang=es`);
    await expect.poll(() => viewerPage.textContent('#title')).toBe('JFK town hall');
    // Not on air yet (the stream is 404 not_started): the page says so and asks again by itself.
    await viewerPage.waitForSelector('#status:has-text("Waiting for the broadcast to start. Checking again in")');
    expect(await viewerPage.textContent('#standby')).toBe('The broadcast has not started yet.');
    expect(await viewerPage.inputValue('#language')).toBe('es');
    expect(await viewerPage.$$eval('#language option', (os) => os.map((o) => (o as unknown as { value: string }).value))).toEqual([
      '',
      'es',
      'fr',
    ]);

    const overlay = await browser.newPage();
    await overlay.setViewportSize({ width: 1280, height: 720 });
    const overlayErrors = pageErrors(overlay);
    await overlay.goto(`${t.url}/b/${b.token}/overlay?lang=es&lines=2&size=40`);
    const only = await browser.newPage();
    await only.setViewportSize({ width: 1280, height: 720 });
    await only.goto(`${t.url}/b/${b.token}/overlay?lang=es&show=translation&lines=1&size=24`);

    const cl = await host(b.token);
    await viewerPage.waitForSelector('#status:has-text("Live")');
    // Live: Spanish can be listened to (eSpeak NG speaks it); the toggle turns on by keyboard.
    await viewerPage.waitForSelector('#listen:not([disabled])', { timeout: 10_000 });
    await viewerPage.focus('#listen');
    await viewerPage.keyboard.press('Enter');
    await viewerPage.waitForSelector('#listen[aria-pressed="true"]');
    await viewerPage.waitForSelector('#status:has-text("Live")');
    const streaming = streamPcm(cl, pcm, 1);
    // An interim caption shows in the interim style while the sentence is under way.
    await viewerPage.waitForSelector('#captions li[data-final="false"] .source.interim', { timeout: 30_000 });
    await viewerPage.waitForSelector('#captions li[data-final="true"] .source:not(.interim)', { timeout: 60_000 });
    await viewerPage.waitForSelector('#captions li .translation[lang="es"]:not(.interim)', { timeout: 60_000 });
    await streaming;
    // Spoken Spanish: tts_ready clips decoded and played through to their end, in order.
    await viewerPage.waitForSelector('body[data-spoken]', { timeout: 60_000 });
    expect(Number(await viewerPage.getAttribute('body', 'data-spoken'))).toBeGreaterThanOrEqual(1);
    const sources = await viewerPage.$$eval('#captions li[data-final="true"] .source', (ps) => ps.map((p) => p.textContent ?? ''));
    expect(sources.join(' ')).toMatch(JFK_WORDS);
    const spanish = await viewerPage.$$eval('#captions .translation[lang="es"]', (ps) => ps.map((p) => p.textContent ?? ''));
    expect(spanish.join(' ').trim().length).toBeGreaterThan(0);
    // The start time (mm:ss from go-live) labels each sentence.
    expect(await viewerPage.textContent('#captions li .meta')).toMatch(/^\d\d:\d\d/);

    // The overlay: the same captions, source and Spanish, at most 2 sentences, 40 px.
    await overlay.waitForSelector('.line.translation:not(.interim)', { timeout: 30_000 });
    expect((await overlay.$$eval('.line.source', (ps) => ps.map((p) => p.textContent ?? ''))).join(' ')).toMatch(JFK_WORDS);
    expect((await overlay.$$('.line.translation')).length).toBeLessThanOrEqual(2);
    expect(await overlay.evaluate('getComputedStyle(document.body).fontSize')).toBe('40px');
    // Translation only, one sentence, 24 px.
    await only.waitForSelector('.line.translation', { timeout: 30_000 });
    expect(await only.$$('.line.source')).toHaveLength(0);
    expect(await only.$$('.line.translation')).toHaveLength(1);
    expect(await only.evaluate("getComputedStyle(document.querySelector('.line.translation')).fontSize")).toBe('24px');

    // Screenshot of the caption region: text drawn on the white page (not a blank box).
    const region = await viewerPage.$('#captions');
    const regionPng = await region!.screenshot();
    keepScreenshot('viewer-captions', regionPng);
    keepScreenshot('viewer-page', await viewerPage.screenshot({ fullPage: true }));
    const shot = decodePng(regionPng);
    const ink = regionStats(shot, { x: 0, y: 0, width: shot.width, height: shot.height }, [255, 255, 255]);
    expect(shot.height).toBeGreaterThan(20);
    expect(ink.differing).toBeGreaterThan(200);

    // The overlay's screenshot without a background: transparent everywhere but the text.
    const overlayPng = await overlay.screenshot({ omitBackground: true });
    keepScreenshot('overlay', overlayPng);
    keepScreenshot('overlay-translation-only', await only.screenshot({ omitBackground: true }));
    const img = decodePng(overlayPng);
    expect([img.width, img.height]).toEqual([1280, 720]);
    const box = (await overlay.$eval('#lines', (el) => {
      const r = (
        el as unknown as { getBoundingClientRect(): { x: number; y: number; width: number; height: number } }
      ).getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    })) as { x: number; y: number; width: number; height: number };
    const above = regionStats(img, { x: 0, y: 0, width: 1280, height: Math.floor(box.y) - 2 });
    expect(above.total).toBeGreaterThan(1280 * 300);
    expect(above.transparent).toBe(above.total);
    const text = regionStats(img, box);
    expect(text.opaque).toBeGreaterThan(500); // glyphs
    expect(text.transparent).toBeGreaterThan(text.total / 4); // between and around them

    // Language switch: French translations replace the Spanish ones (the stream's replay).
    await viewerPage.selectOption('#language', 'fr');
    await viewerPage.waitForSelector('#captions .translation[lang="fr"]', { timeout: 20_000 });
    expect(await viewerPage.$$('#captions .translation[lang="es"]')).toHaveLength(0);
    expect(sources.length).toBeGreaterThan(0);

    // Spoken translations: the listen toggle is offered only for a language the stream speaks.
    const ttsLangs = await api(t.url, 'GET', `/api/v1/viewer/broadcasts/${b.token}`).then((r) => r.body.data.tts_languages as string[]);
    expect(await viewerPage.isDisabled('#listen')).toBe(!ttsLangs.includes('fr'));

    stop(cl);
    await viewerPage.waitForSelector('#ended:not([hidden])', { timeout: 20_000 });
    expect(await viewerPage.textContent('#ended')).toMatch(/ended/i);
    expect(await viewerPage.isHidden('#controls')).toBe(true);
    // Captions stay readable after the end.
    expect((await viewerPage.$$('#captions li')).length).toBeGreaterThan(0);
    // The browser logs the refused connections while not on air (404 not_started) as failed loads; nothing else.
    const notOnAir = /^console: Failed to load resource: the server responded with a status of 404/;
    expect(errors.filter((e) => !notOnAir.test(e))).toEqual([]);
    expect(errors.length).toBeGreaterThan(0);
    expect(overlayErrors.filter((e) => !notOnAir.test(e))).toEqual([]);
    await Promise.all([viewerPage.close(), overlay.close(), only.close()]);
  }, 150_000);

  it('password channel: the prompt refuses a wrong password, opens with the right one, and remembers it for the tab', async () => {
    const b = await newBroadcast(t, key, {
      name: 'Board meeting',
      transcription_languages: ['en'],
      translation_languages: ['es'],
      access_type: 'password',
      pass_code: 'open-2026',
    });
    const cl = await host(b.token, 'standby', { standby_message: 'Starting in five minutes' });
    const page = await browser.newPage();
    const errors = pageErrors(page);
    await page.goto(`${t.url}/b/${b.token}`);
    await page.waitForSelector('#password-form:not([hidden])');
    expect(await page.isHidden('#controls')).toBe(true);
    // The password field is labelled and focused for keyboard users.
    expect(await page.$eval('label[for="password"]', (l) => l.textContent)).toMatch(/password/i);
    expect(await page.evaluate('document.activeElement.id')).toBe('password');
    await page.keyboard.type('wrong-one');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#password-error:has-text("Wrong password")');
    keepScreenshot('viewer-password', await page.screenshot());
    expect(await page.isVisible('#password-form')).toBe(true);
    await page.fill('#password', 'open-2026');
    await page.click('#password-form button');
    await page.waitForSelector('#password-form', { state: 'hidden' });
    // Admitted to the stream: the host's standby message, not captions.
    await page.waitForSelector('#standby:has-text("Starting in five minutes")');
    expect(await page.textContent('#status')).toMatch(/Waiting for the broadcast/);
    // A reload in the same tab keeps the viewer token: no prompt again.
    await page.reload();
    await page.waitForSelector('#standby:has-text("Starting in five minutes")');
    expect(await page.isHidden('#password-form')).toBe(true);

    // The overlay takes the password from the URL fragment (never sent to the server).
    const overlay = await browser.newPage();
    await overlay.goto(`${t.url}/b/${b.token}/overlay#password=open-2026`);
    const bare = await browser.newPage();
    await bare.goto(`${t.url}/b/${b.token}/overlay`);
    await bare.waitForSelector('.notice:has-text("Password needed")');
    // The page and the overlay hold seats; the overlay without a password does not.
    await expect
      .poll(async () => (await api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`, { key })).body.data.viewer_count, { timeout: 15_000 })
      .toBe(2);
    cl.send(vt('broadcast_go_live'));
    await event(cl, 'phase_changed');
    // An overlay that shows the source only and announcements for one second.
    const sourceOnly = await browser.newPage();
    await sourceOnly.goto(`${t.url}/b/${b.token}/overlay?show=source&announce=1#password=open-2026`);
    await expect
      .poll(async () => (await api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`, { key })).body.data.viewer_count, { timeout: 15_000 })
      .toBe(3);
    cl.send(vt('broadcast_announcement', { message: 'Welcome to the board meeting' }));
    const welcome = await event(cl, 'announcement');
    await page.waitForSelector('#announcement:has-text("Welcome to the board meeting")');
    expect(await page.isHidden('#standby')).toBe(true);
    // The overlays: at the top, in the overlay's language (Spanish, translated by the host's node), or the source.
    const spanishWelcome = welcome.data.translations?.es as string | undefined;
    await overlay.waitForSelector('#announcement:not([hidden])');
    expect(await overlay.textContent('#announcement')).toBe(spanishWelcome ?? 'Welcome to the board meeting');
    expect(await overlay.getAttribute('#announcement', 'lang')).toBe(spanishWelcome ? 'es' : null);
    keepScreenshot('overlay-announcement', await overlay.screenshot({ omitBackground: true }));
    await sourceOnly.waitForSelector('#announcement:has-text("Welcome to the board meeting")');
    // announce=1: gone after a second; the default overlay still shows it (10 s).
    await sourceOnly.waitForSelector('#announcement', { state: 'hidden', timeout: 5000 });
    expect(await overlay.isVisible('#announcement')).toBe(true);
    // The host changes the pass code: the viewer is asked again and gets back in with the new one.
    const patched = await api(t.url, 'PATCH', `/api/v1/broadcasts/${b.id}`, { key, body: { pass_code: 'new-code-7' } });
    expect(patched.status).toBe(200);
    await page.waitForSelector('#password-error:has-text("password changed")', { timeout: 15_000 });
    expect(await page.isHidden('#controls')).toBe(true);
    await page.fill('#password', 'new-code-7');
    await page.press('#password', 'Enter');
    await page.waitForSelector('#status:has-text("Live")');
    cl.send(vt('broadcast_announcement', { message: 'Back after the new code' }));
    await page.waitForSelector('#announcement:has-text("Back after the new code")');
    stop(cl);
    await page.waitForSelector('#ended:not([hidden])');
    // The wrong password's 401 is the one failed request (the browser logs it).
    expect(errors).toEqual(['console: Failed to load resource: the server responded with a status of 401 (Unauthorized)']);
    await Promise.all([page.close(), overlay.close(), bare.close(), sourceOnly.close()]);
  }, 90_000);

  it('reconnects by itself after its connection drops, and the broadcast goes on', async () => {
    const b = await newBroadcast(t, key, { transcription_languages: ['en'], translation_languages: ['es'] });
    const cl = await host(b.token);
    const page = await browser.newPage();
    await page.goto(`${t.url}/b/${b.token}`);
    await page.waitForSelector('#status:has-text("Live")');
    // Every HTTP connection of the server is cut (as a proxy or a network change would); the
    // host's WebSocket, no longer an HTTP connection, stays.
    t.app.http.server.closeAllConnections();
    await page.waitForSelector('#status:has-text("Reconnecting")', { timeout: 20_000 });
    await page.waitForSelector('#status:has-text("Live")', { timeout: 40_000 });
    expect(cl.ws.readyState).toBe(cl.ws.OPEN);
    cl.send(vt('broadcast_announcement', { message: 'Still here after the drop' }));
    await page.waitForSelector('#announcement:has-text("Still here after the drop")');
    stop(cl);
    await page.waitForSelector('#ended:not([hidden])');
    await page.close();
  }, 90_000);

  it('speaker labels: shown with each sentence, renamed and reassigned in place', async () => {
    // What a multi-speaker host's node publishes on the broadcast's viewer topic (spec shapes),
    // published here directly so the page's part does not depend on live diarization (which
    // the built-in engines may not serve); the real stream carries them to the page.
    const b = await newBroadcast(t, key, { transcription_languages: ['en'], translation_languages: ['es'] });
    await onAir(t, b.id);
    const page = await browser.newPage();
    await page.goto(`${t.url}/b/${b.token}?lang=es`);
    await page.waitForSelector('#status:has-text("Waiting for the broadcast")');
    const publish = (event: string, data: Record<string, unknown>) => t.app.deps.bus.publish(viewerTopic(b.id), { event, data });
    await publish('phase_changed', { phase: 'live' });
    const said = { start_time: '00:02', is_final: true };
    await publish('origin', { sid: 1, text: 'Good morning everyone', speaker_id: 'spk_1', speaker_label: 'Speaker 1', ...said });
    await publish('translation', {
      sid: 1,
      language: 'es',
      text: 'Buenos días a todos',
      speaker_id: 'spk_1',
      speaker_label: 'Speaker 1',
      is_final: true,
    });
    await publish('origin', { sid: 2, text: 'Thank you', speaker_id: 'spk_2', speaker_label: 'Speaker 2', ...said, start_time: '00:05' });
    await page.waitForSelector('#captions li[data-sid="2"]');
    const metas = () => page.$$eval('#captions li .meta', (ms) => ms.map((m) => m.textContent));
    expect(await metas()).toEqual(['00:02 · Speaker 1', '00:05 · Speaker 2']);
    expect(await page.textContent('#captions li[data-sid="1"] .translation')).toBe('Buenos días a todos');
    await publish('speaker_renamed', { speaker_id: 'spk_1', new_label: 'Ana', affected_sids: [1] });
    await expect.poll(metas).toEqual(['00:02 · Ana', '00:05 · Speaker 2']);
    await publish('speaker_reassigned', { sid: 2, old_speaker_id: 'spk_2', new_speaker_id: 'spk_1', new_speaker_label: 'Ana' });
    await expect.poll(metas).toEqual(['00:02 · Ana', '00:05 · Ana']);
    await page.close();
  });

  it('a full broadcast: the second viewer waits in line with its position and gets in when a place frees', async () => {
    const b = await newBroadcast(t, key, { transcription_languages: ['en'], translation_languages: ['es'], max_viewers: 1 });
    await onAir(t, b.id);
    const first = await browser.newPage();
    await first.goto(`${t.url}/b/${b.token}`);
    await first.waitForSelector('#status:has-text("Waiting for the broadcast")');
    const second = await browser.newPage();
    await second.goto(`${t.url}/b/${b.token}`);
    await second.waitForSelector('#queue:has-text("number 1 in line")');
    keepScreenshot('viewer-queued', await second.screenshot());
    expect(await second.textContent('#status')).toMatch(/line/);
    await first.close();
    await second.waitForSelector('#queue', { state: 'hidden', timeout: 20_000 });
    expect(await second.textContent('#status')).toMatch(/Waiting for the broadcast/);
    await second.close();
  }, 60_000);

  it('limits: too many unknown lookups, a wrong-password lock and a full waiting line each say so, and when it tries again', async () => {
    const b = await newBroadcast(t, key, { transcription_languages: ['en'], translation_languages: ['es'], max_viewers: 1 });
    await onAir(t, b.id);
    // A source that looked up 20 unknown channels in the last minute: its next lookups are refused (429).
    const noisy = randomIp();
    for (let i = 0; i < 20; i++) await viewer(t, 'GET', `/api/v1/viewer/broadcasts/zz${String(i).padStart(2, '0')}`, { ip: noisy });
    const limited = await browser.newPage();
    await limited.setExtraHTTPHeaders({ 'x-forwarded-for': noisy });
    await limited.goto(`${t.url}/b/${b.token}`);
    await limited.waitForSelector('#status:has-text("Too many requests")');
    expect(await limited.textContent('#status')).toMatch(/trying again in \d+ s/);
    expect(await limited.isHidden('#controls')).toBe(true);
    keepScreenshot('viewer-too-many-requests', await limited.screenshot());

    // 30 wrong passwords from one source: verify is locked for it, even with the right password.
    const locked = await newBroadcast(t, key, {
      transcription_languages: ['en'],
      translation_languages: ['es'],
      access_type: 'password',
      pass_code: 'open-2026',
    });
    const guesser = randomIp();
    for (let i = 0; i < 30; i++) {
      const r = await viewer(t, 'POST', `/api/v1/viewer/broadcasts/${locked.token}/verify`, {
        ip: guesser,
        body: { password: `guess-${i}` },
      });
      expect(r.status).toBe(401);
    }
    const lockedPage = await browser.newPage();
    await lockedPage.setExtraHTTPHeaders({ 'x-forwarded-for': guesser });
    await lockedPage.goto(`${t.url}/b/${locked.token}`);
    await lockedPage.waitForSelector('#password-form:not([hidden])');
    await lockedPage.fill('#password', 'open-2026');
    await lockedPage.press('#password', 'Enter');
    await lockedPage.waitForSelector('#password-error:has-text("Too many attempts")');
    expect(await lockedPage.textContent('#password-error')).toMatch(/Try again in \d+ seconds/);
    expect(await lockedPage.isVisible('#password-form')).toBe(true);
    keepScreenshot('viewer-password-locked', await lockedPage.screenshot());

    // A full broadcast whose waiting line is full too (max_viewers 1: one seat, 100 waiting): 503, said as such.
    const crowd: ViewerClient[] = [];
    for (let i = 0; i < 101; i += 20)
      crowd.push(
        ...(await Promise.all(
          // From 101 addresses: one address holds only its share of seats and queue places.
          Array.from({ length: Math.min(20, 101 - i) }, (_, j) => openViewer(t, b.token, '', { 'x-forwarded-for': `10.66.${i + j}.1` })),
        )),
      );
    expect(crowd.every((v) => v.status === 200)).toBe(true);
    const full = await browser.newPage();
    await full.goto(`${t.url}/b/${b.token}`);
    await full.waitForSelector('#status:has-text("full")', { timeout: 20_000 });
    expect(await full.textContent('#status')).toMatch(/waiting line too\. Trying again in \d+ s/);
    keepScreenshot('viewer-broadcast-full', await full.screenshot());
    // Places free up: the page gets in by itself (first in the line, then... the one seat).
    for (const v of crowd) v.close();
    await full.waitForSelector('#status:has-text("Waiting for the broadcast")', { timeout: 60_000 });
    await Promise.all([limited.close(), lockedPage.close(), full.close()]);
  }, 120_000);

  it('an unknown token and an ended broadcast say so instead of waiting', async () => {
    const page = await browser.newPage();
    const r = await fetch(`${t.url}/b/zz99`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-security-policy')).toContain("connect-src 'self'");
    await page.goto(`${t.url}/b/zz99`);
    await page.waitForSelector('#ended:has-text("not valid")');
    const b = await newBroadcast(t, key, { transcription_languages: ['en'], translation_languages: ['es'] });
    const cl = await host(b.token);
    stop(cl);
    await page.goto(`${t.url}/b/${b.token}`);
    await page.waitForSelector('#ended:has-text("ended")');
    expect(await page.isHidden('#password-form')).toBe(true);
    await page.close();
  }, 60_000);
});
