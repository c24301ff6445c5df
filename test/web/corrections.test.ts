/**
 * Corrections in the console (Debian Chromium through playwright-core, the fake microphone
 * playing jfk) against the real app with the built-in engines: in the task view a sentence is
 * edited in place over REST (its Spanish retranslated beside it), then undone; in the live view
 * a final caption is corrected while recording (correct_sentence) and every change shows in
 * place, then undone; the broadcast viewer page and the OBS overlay replace a corrected caption
 * and its translation in place. Waits are on what the page shows, never sleeps.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../scripts/build-console.js';
import { viewerTopic } from '../../src/broadcasts/viewer-events.js';
import type { Translator } from '../../src/engines/types.js';
import { onAir } from '../broadcasts/support.js';
import { liveEngines } from '../realtime/support.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { haveSharedAudio, JFK } from '../support/audio.js';
import { haveChromium, launchBrowser, pageErrors, type TestBrowser } from '../support/browser.js';
import { type Account, seedTask } from '../support/seeded-tasks.js';

const LONG = 180_000;
const ES = { 1: 'La casa es grande.', 2: 'Mi hermano come una manzana.', 3: 'Vivimos en una ciudad pequeña.' };

describe.skipIf(!haveChromium() || !haveSharedAudio())('corrections in the console (Chromium)', () => {
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;
  let errors: string[];
  let account: Account;
  const dir = mkdtempSync(join(tmpdir(), 'parley-corrections-'));
  const wav = join(dir, 'jfk.wav');

  beforeAll(async () => {
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', JFK, '-ar', '48000', '-ac', '1', wav]);
    const [app, b] = await Promise.all([
      (async () => {
        await buildConsole();
        return startTestApp({ engines: await liveEngines() });
      })(),
      launchBrowser({ fakeAudioWav: wav }),
    ]);
    t = app;
    browser = b;
    const k = await t.app.deps.keys.createKey({ name: 'corrections console' });
    await t.app.deps.billing.grantCredit({ accountId: k.account_id, points: 500, pool: 'account' });
    account = { key: k.api_key, accountId: k.account_id, keyId: k.key_id };
    page = await browser.newPage();
    errors = pageErrors(page);
    await page.goto(`${t.url}/`);
    await page.getByLabel('API key').fill(account.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Screens' }).waitFor();
  }, LONG);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'task view: a sentence edited in place, its Spanish retranslated beside it, the export changed; Undo restores it',
    async () => {
      const taskId = await seedTask(t, account, { es: ES });
      await page.goto(`${t.url}/#/library/${taskId}`);
      const second = page.locator('ol.sentences li').nth(1);
      await second.locator('.origin').filter({ hasText: 'My brother eats an apple.' }).waitFor();
      await second.getByRole('button', { name: 'Correct sentence 2' }).click();
      const field = second.getByLabel('Corrected text of sentence 2');
      expect(await field.inputValue()).toBe('My brother eats an apple.');
      await field.fill('My sister eats a pear.');
      await field.press('Enter');
      await page.getByText('Sentence 2 corrected (revision 1).').waitFor();
      expect(await second.locator('.origin').textContent()).toBe('My sister eats a pear.');
      const apertium = t.app.deps.engines.select({ kind: 'translator', from: 'en', to: 'es' });
      if (!apertium.ok) throw new Error('no translator');
      const spanish = await (apertium.engine as Translator).translate('My sister eats a pear.', { from: 'en', to: 'es' });
      expect(await second.locator('.translation[lang="es"]').textContent()).toBe(spanish);
      const exported = await (
        await fetch(`${t.url}/api/v1/tasks/${taskId}/transcript/export`, { headers: { 'x-api-key': account.key } })
      ).text();
      expect(exported).toContain('My sister eats a pear.');

      // Escape closes an edit without sending anything.
      await second.getByRole('button', { name: 'Correct sentence 2' }).click();
      await second.getByLabel('Corrected text of sentence 2').fill('Never sent.');
      await second.getByLabel('Corrected text of sentence 2').press('Escape');
      expect(await second.locator('.origin').textContent()).toBe('My sister eats a pear.');

      await second.getByRole('button', { name: 'Undo the correction of sentence 2' }).click();
      await page.getByText('Sentence 2: correction undone.').waitFor();
      expect(await second.locator('.origin').textContent()).toBe('My brother eats an apple.');
      expect(await second.locator('.translation[lang="es"]').textContent()).toBe(ES[2]);
      // Back at the recognized text: nothing left to undo.
      await expect.poll(() => second.getByRole('button', { name: 'Undo the correction of sentence 2' }).count()).toBe(0);

      // An empty correction: the server's code shows beside the field, nothing changes.
      await second.getByRole('button', { name: 'Correct sentence 2' }).click();
      await second.getByLabel('Corrected text of sentence 2').fill('   ');
      await second.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => second.getByRole('alert').textContent()).toContain('sentence_text_empty');
      expect(await second.locator('.origin').textContent()).toBe('My brother eats an apple.');
    },
    LONG,
  );

  it(
    'live view: a final caption corrected while recording, shown in place with its new Spanish; Undo restores it',
    async () => {
      await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Live', exact: true }).click();
      await page.getByRole('heading', { name: 'Live', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Start recording' }).click();
      const final = page.locator('.caption.final').first();
      await final.waitFor({ timeout: LONG });
      await final.locator('.translation[lang="es"]').waitFor({ timeout: LONG });
      const sid = Number(await final.getAttribute('data-sid'));
      const recognized = (await final.locator('.source').textContent()) ?? '';
      await final.getByRole('button', { name: `Correct sentence ${sid}` }).click();
      const field = final.getByLabel(`Corrected text of sentence ${sid}`);
      await field.fill('The house is big.');
      await field.press('Enter');
      await expect.poll(() => final.locator('.source').textContent(), { timeout: 30_000 }).toBe('The house is big.');
      await expect.poll(() => final.locator('.translation[lang="es"]').textContent(), { timeout: 30_000 }).toMatch(/casa/i);
      await final.getByRole('button', { name: `Undo the correction of sentence ${sid}` }).click();
      await expect.poll(() => final.locator('.source').textContent(), { timeout: 30_000 }).toBe(recognized);
      await page.getByRole('button', { name: 'Stop' }).click();
      await page.getByRole('link', { name: 'Open the recording in the library' }).waitFor({ timeout: LONG });
      // The stored transcript has the recognized text again (the undo came last), and its history lists both changes.
      const tasks = (await api(t.url, 'GET', '/api/v1/tasks?status=all', { key: account.key })).body.data.tasks as Array<{
        task_id: string;
        type_source: string;
      }>;
      const live = tasks.find((x) => x.type_source === 'realtime')!;
      const revisions = await api(t.url, 'GET', `/api/v1/tasks/${live.task_id}/sentences/${sid}/revisions`, { key: account.key });
      expect(revisions.body.data.revisions.map((r: { kind: string }) => r.kind)).toEqual(['recognized', 'correction', 'undo']);
      expect(revisions.body.data.text).toBe(recognized);
    },
    LONG * 2,
  );

  it('viewer page and overlay: a corrected caption and its translation replaced in place, then the undo', async () => {
    // What the hosting node publishes on the broadcast's viewer topic (the shapes of host-session.ts), carried by the real stream.
    const created = await api(t.url, 'POST', '/api/v1/broadcasts', {
      key: account.key,
      body: { transcription_languages: ['en'], translation_languages: ['es'] },
    });
    const b = created.body.data as { id: string; token: string };
    await onAir(t, b.id);
    const viewerPage = await browser.newPage();
    const viewerErrors = pageErrors(viewerPage);
    await viewerPage.goto(`${t.url}/b/${b.token}?lang=es`);
    const overlay = await browser.newPage();
    await overlay.goto(`${t.url}/b/${b.token}/overlay?lang=es&lines=2`);
    await viewerPage.waitForSelector('#status:has-text("Waiting for the broadcast")');
    const publish = (event: string, data: Record<string, unknown>) => t.app.deps.bus.publish(viewerTopic(b.id), { event, data });
    await publish('phase_changed', { phase: 'live' });
    const said = { speaker_label: null, start_time: '00:02', is_final: true };
    await publish('origin', { sid: 1, text: 'The whether is nice', ...said });
    await publish('translation', {
      sid: 1,
      language: 'es',
      text: 'El si hace bueno',
      speaker_id: null,
      speaker_label: null,
      is_final: true,
    });
    await viewerPage.waitForSelector('#captions li[data-sid="1"] .translation[lang="es"]');
    const correction = (revision: number, kind: string, text: string, es: string) => ({
      sid: 1,
      revision,
      kind,
      text,
      previous_text: '',
      translations: { es },
      translation_errors: {},
      speaker_label: null,
      start_time: '00:02',
    });
    await publish('sentence_corrected', correction(1, 'correction', 'The weather is nice', 'El tiempo es agradable'));
    const shown = async () => [
      await viewerPage.textContent('#captions li[data-sid="1"] .source'),
      await viewerPage.textContent('#captions li[data-sid="1"] .translation[lang="es"]'),
    ];
    await expect.poll(shown).toEqual(['The weather is nice', 'El tiempo es agradable']);
    expect(await viewerPage.locator('#captions li').count()).toBe(1);
    const lines = () => overlay.$$eval('.line', (ps) => ps.map((p) => p.textContent));
    await expect.poll(lines).toEqual(['The weather is nice', 'El tiempo es agradable']);
    await publish('sentence_corrected', correction(2, 'undo', 'The whether is nice', 'El si hace bueno'));
    await expect.poll(shown).toEqual(['The whether is nice', 'El si hace bueno']);
    await expect.poll(lines).toEqual(['The whether is nice', 'El si hace bueno']);
    expect(viewerErrors).toEqual([]);
    await viewerPage.close();
    await overlay.close();
  });

  it('logged no console errors', () => {
    // The refused empty correction is a 422 the browser logs itself.
    expect(errors.filter((e) => !e.includes('422'))).toEqual([]);
  });
});
