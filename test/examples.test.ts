/**
 * The README's example scripts run as a newcomer runs them, against a real server: a live
 * caption of jfk over the WebSocket (PCM frames, faster than real time) and an import with a
 * Spanish translation and a summary (upload, progress stream, history stream).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importWithTranslationAndSummary } from '../examples/import-with-translation-and-summary.js';
import { liveCaptionFile } from '../examples/live-caption-file.js';
import { pocketsphinxFileFactory } from '../src/engines/builtin/pocketsphinx/index.js';
import type { CreatedKey } from '../src/keys/service.js';
import { liveEngines } from './realtime/support.js';
import { startTestApp, type TestApp } from './support/app.js';
import { convert, haveSharedAudio, JFK } from './support/audio.js';

describe.skipIf(!haveSharedAudio())('example scripts', () => {
  let t: TestApp;
  let key: CreatedKey;
  beforeAll(async () => {
    // The built-in engines the examples use: streaming and file PocketSphinx, Apertium, extractive summaries.
    t = await startTestApp({ engines: await liveEngines([pocketsphinxFileFactory]) });
    key = await t.app.deps.keys.createKey({ name: 'examples' });
    await t.app.deps.billing.grantCredit({ accountId: key.account_id, points: 1000, pool: 'account' });
  }, 60_000);
  afterAll(() => t?.close());

  it('live-caption-file: finals of jfk with their task', async () => {
    const lines: string[] = [];
    const r = await liveCaptionFile({ baseUrl: t.url, apiKey: key.api_key, file: JFK, speed: 4, onCaption: (l) => lines.push(l) });
    expect(r.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.finals.join(' ').toLowerCase()).toMatch(/country/);
    expect(lines.some((l) => l.includes(' es: '))).toBe(true);
  }, 120_000);

  it('import-with-translation-and-summary: completed task with Spanish and a summary', async () => {
    const r = await importWithTranslationAndSummary({ baseUrl: t.url, apiKey: key.api_key, file: convert(JFK, 'wav'), log: () => {} });
    expect(r.sentences.length).toBeGreaterThan(0);
    expect(
      r.sentences
        .map((s) => s.origin)
        .join(' ')
        .toLowerCase(),
    ).toMatch(/country/);
    expect(r.sentences.every((s) => typeof s.translation === 'string' && s.translation.length > 0)).toBe(true);
    expect(r.summary.length).toBeGreaterThan(0);
  }, 180_000);
});
