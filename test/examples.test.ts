/**
 * The README's example scripts run as a newcomer runs them, on the sample the repository ships
 * (examples/audio), against a real server: a live caption over the WebSocket (PCM frames,
 * faster than real time) and an import with a Spanish translation and a summary (upload,
 * progress stream, history stream). Run as commands, they fail with one line naming the cause.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importWithTranslationAndSummary } from '../examples/import-with-translation-and-summary.js';
import { liveCaptionFile } from '../examples/live-caption-file.js';
import { pocketsphinxFileFactory } from '../src/engines/builtin/pocketsphinx/index.js';
import type { CreatedKey } from '../src/keys/service.js';
import { liveEngines } from './realtime/support.js';
import { startTestApp, type TestApp } from './support/app.js';
import { freePort } from './support/server.js';

const ROOT = join(import.meta.dirname, '..');
/** Three sentences of a LibriVox reading of Sense and Sensibility (examples/audio/README.md). */
const SAMPLE = join(ROOT, 'examples', 'audio', 'sense-and-sensibility.wav');

describe('example scripts', () => {
  let t: TestApp;
  let key: CreatedKey;
  beforeAll(async () => {
    // The built-in engines the examples use: streaming and file PocketSphinx, Apertium, extractive summaries.
    t = await startTestApp({ engines: await liveEngines([pocketsphinxFileFactory]) });
    key = await t.app.deps.keys.createKey({ name: 'examples' });
    await t.app.deps.billing.grantCredit({ accountId: key.account_id, points: 1000, pool: 'account' });
  }, 60_000);
  afterAll(() => t?.close());

  it('live-caption-file: finals of the sample with their task', async () => {
    const lines: string[] = [];
    const r = await liveCaptionFile({ baseUrl: t.url, apiKey: key.api_key, file: SAMPLE, speed: 4, onCaption: (l) => lines.push(l) });
    expect(r.taskId).toMatch(/^[0-9a-f-]{36}$/);
    const text = r.finals.join(' ').toLowerCase();
    expect(text, text).toMatch(/young man.*rather selfish/);
    expect(lines.some((l) => l.includes(' es: '))).toBe(true);
  }, 120_000);

  it('import-with-translation-and-summary: completed task with Spanish and a summary', async () => {
    const r = await importWithTranslationAndSummary({ baseUrl: t.url, apiKey: key.api_key, file: SAMPLE, log: () => {} });
    expect(r.sentences.length).toBeGreaterThan(0);
    const text = r.sentences
      .map((s) => s.origin)
      .join(' ')
      .toLowerCase();
    expect(text, text).toMatch(/young man.*rather selfish/);
    expect(r.sentences.every((s) => typeof s.translation === 'string' && s.translation.length > 0)).toBe(true);
    expect(r.summary.length).toBeGreaterThan(0);
  }, 180_000);

  /**
   * Runs an example as the README does; its exit status and what it printed on stderr. Not
   * spawnSync: the test server runs in this process and must keep answering.
   */
  const runScript = (script: string, args: string[], env: Record<string, string>) =>
    new Promise<{ status: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', join(ROOT, 'examples', script), ...args],
        { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 },
        (err, _stdout, stderr) => resolve({ status: err ? ((err as { code?: number }).code ?? null) : 0, stderr: stderr.trim() }),
      );
    });

  it('a missing file is named, before anything is uploaded or a session opened', async () => {
    for (const script of ['import-with-translation-and-summary.ts', 'live-caption-file.ts']) {
      const r = await runScript(script, ['/tmp/no-such-recording.wav'], { PARLEY_API_KEY: key.api_key, PARLEY_BASE_URL: t.url });
      expect(r, script).toEqual({ status: 1, stderr: 'error: cannot read /tmp/no-such-recording.wav: no such file' });
    }
  }, 60_000);

  it('a server that does not answer is named with the setting that moves it', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    for (const script of ['import-with-translation-and-summary.ts', 'live-caption-file.ts']) {
      const r = await runScript(script, [SAMPLE], { PARLEY_API_KEY: key.api_key, PARLEY_BASE_URL: closed });
      expect(r, script).toEqual({
        status: 1,
        stderr: `error: no Parley server answers at ${closed} (start it with npm run serve, or set PARLEY_BASE_URL)`,
      });
    }
  }, 60_000);

  it("a wrong key gives the server's error code, not a stack trace", async () => {
    const r = await runScript('import-with-translation-and-summary.ts', [SAMPLE], { PARLEY_API_KEY: 'svc_nope', PARLEY_BASE_URL: t.url });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error: auth_invalid_key_format \(HTTP 401\): /);
  }, 60_000);

  it('without a key or a file it prints its usage', async () => {
    const r = await runScript('live-caption-file.ts', [], { PARLEY_API_KEY: '' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^usage: PARLEY_API_KEY=svc_\.\.\. \[PARLEY_BASE_URL=http:\/\/localhost:8080\] npx tsx examples\/live-caption-file\.ts/,
    );
  });
});
