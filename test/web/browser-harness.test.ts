/**
 * The browser-test harness itself (test/support/browser.ts, test/support/png.ts): Chromium
 * starts headless from Debian's package, a screenshot without background keeps transparent
 * pixels transparent and drawn ones opaque, and the fake microphone plays a WAV file into
 * getUserMedia (what later tests of recording pages rely on).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JFK } from '../support/audio.js';
import { haveChromium, launchBrowser, pageErrors, type TestBrowser } from '../support/browser.js';
import { decodePng, regionStats } from '../support/png.js';

const PAGE = `<!doctype html><html><head><style>html,body{margin:0;background:transparent}
#box{position:absolute;left:20px;top:30px;width:100px;height:50px;background:rgb(200,0,0)}</style></head>
<body><div id="box"></div><script>
window.mic = async () => {
  const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  const ctx = new AudioContext();
  const an = ctx.createAnalyser();
  ctx.createMediaStreamSource(stream).connect(an);
  const buf = new Float32Array(an.fftSize);
  let peak = 0;
  for (let i = 0; i < 40 && peak < 0.01; i++) {
    await new Promise((r) => setTimeout(r, 50));
    an.getFloatTimeDomainData(buf);
    for (const v of buf) peak = Math.max(peak, Math.abs(v));
  }
  return { tracks: stream.getAudioTracks().length, peak };
};
</script></body></html>`;

describe.skipIf(!haveChromium())('browser-test harness (Debian Chromium + playwright-core)', () => {
  let server: Server;
  let url: string;
  let browser: TestBrowser;
  const dir = mkdtempSync(join(tmpdir(), 'parley-harness-'));
  const wav = join(dir, 'jfk.wav');
  beforeAll(async () => {
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', JFK, '-ar', '48000', '-ac', '1', wav]);
    // 127.0.0.1 over http is a secure context, so getUserMedia is allowed.
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    browser = await launchBrowser({ fakeAudioWav: wav, viewport: { width: 300, height: 200 } });
  });
  afterAll(async () => {
    await browser?.close();
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('screenshots without background: the drawn box is opaque red, the rest fully transparent', async () => {
    const page = await browser.newPage();
    const errors = pageErrors(page);
    await page.goto(url);
    const img = decodePng(await page.screenshot({ omitBackground: true }));
    expect([img.width, img.height]).toEqual([300, 200]);
    const box = regionStats(img, { x: 20, y: 30, width: 100, height: 50 }, [200, 0, 0]);
    expect(box.opaque).toBe(box.total);
    expect(box.differing).toBe(0);
    const outside = regionStats(img, { x: 150, y: 0, width: 150, height: 200 });
    expect(outside.transparent).toBe(outside.total);
    // With a background the same page is opaque everywhere (the decoder reads alpha, not a constant).
    const opaque = decodePng(await page.screenshot());
    expect(regionStats(opaque, { x: 150, y: 0, width: 150, height: 200 }).opaque).toBe(150 * 200);
    expect(errors).toEqual([]);
    await page.close();
  });

  const mic = async (b: TestBrowser) => {
    const page = await b.newPage();
    await page.goto(url);
    const out = (await page.evaluate('window.mic()')) as { tracks: number; peak: number };
    await page.close();
    return out;
  };

  it('the fake microphone plays the given WAV file into getUserMedia: speech from jfk, nothing from silence', async () => {
    const speech = await mic(browser);
    expect(speech.tracks).toBe(1);
    expect(speech.peak).toBeGreaterThan(0.01);
    // The same page with a silent file hears nothing (Chromium's default fake device would beep).
    const silent = join(dir, 'silence.wav');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'anullsrc=r=48000:cl=mono', '-t', '5', silent]);
    const quiet = await launchBrowser({ fakeAudioWav: silent });
    try {
      const heard = await mic(quiet);
      expect(heard.tracks).toBe(1);
      expect(heard.peak).toBeLessThan(0.001);
    } finally {
      await quiet.close();
    }
  });
});
