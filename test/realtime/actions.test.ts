/**
 * Session actions on real engines (PocketSphinx, Apertium, extractive summarizer): config
 * (glossary applied to recognized text and to translations), set_name, set_summary,
 * switch_language, retranslate, and the config_* codes. Glossary limits are lowered by
 * configuration so the limit codes need small payloads.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, type TestApp } from '../support/app.js';
import {
  connect,
  errorWith,
  event,
  JFK,
  jfkPcm,
  type Msg,
  startLiveApp,
  startSession,
  streamPcm,
  ticketFor,
  vt,
  waitFor,
} from './support.js';

const haveAudio = existsSync(JFK);

describe.each(backends())('session actions (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp(backend, {
      env: {
        PARLEY_GLOSSARY_TERMS_PER_LANGUAGE: '3',
        PARLEY_GLOSSARY_DICT_PER_LANGUAGE: '2',
        PARLEY_GLOSSARY_MAX_LANGUAGES: '2',
        PARLEY_GLOSSARY_MAX_BYTES: '2000',
      },
    });
  }, 60_000);
  afterAll(() => t?.close());

  it('config reports each config_* code and keeps the connection', async () => {
    const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
    const config = async (data: Record<string, unknown>) => {
      cl.send(vt('config', data));
      return (await cl.next((m) => m.type === 'error' || m.data?.action === 'config_updated')).data;
    };
    expect(await config({})).toMatchObject({ error_code: 'config_empty', severity: 'error' });
    expect(await config({ terminology: { en: [] } })).toMatchObject({ error_code: 'config_empty' });
    expect(await config({ terminology: { en: [{ term: 'x'.repeat(101) }] } })).toMatchObject({
      error_code: 'config_term_too_long',
      details: { problems: [expect.objectContaining({ actual: 101, limit: 100 })] },
    });
    expect(await config({ terminology: { en: ['a', 'b', 'c', 'd'] } })).toMatchObject({ error_code: 'config_too_many_entries' });
    const dict = [1, 2, 3].map((i) => ({ source: `s${i}`, target: `t${i}` }));
    expect(await config({ translation_dict: { es: dict } })).toMatchObject({ error_code: 'config_too_many_dict_entries' });
    expect(await config({ fuzzy_correction: { en: [{ correct: 'Parley' }] } })).toMatchObject({
      error_code: 'config_invalid_entry',
      details: { problems: [expect.objectContaining({ field: 'fuzzy_correction', language: 'en', index: 0 })] },
    });
    expect(await config({ terminology: '{not json' })).toMatchObject({ error_code: 'config_invalid_entry' });
    expect(await config({ terminology: { en: ['a'], fr: ['b'], de: ['c'] } })).toMatchObject({
      error_code: 'config_too_many_languages',
      details: { problems: [expect.objectContaining({ actual: 3, limit: 2 })] },
    });
    expect(
      await config({ terminology: { en: ['x'.repeat(90)] }, translation_dict: { es: [{ source: 'a', target: 'y'.repeat(2000) }] } }),
    ).toMatchObject({ error_code: 'config_payload_too_large' });
    // Valid: counts come back, and clear removes it again.
    expect(await config({ terminology: JSON.stringify({ en: [{ term: 'Parley' }] }) })).toMatchObject({
      action: 'config_updated',
      terminology: 1,
      fuzzy_correction: 0,
      translation_dict: 0,
      languages: ['en'],
      cleared: false,
    });
    expect(await config({ clear: true })).toMatchObject({ action: 'config_updated', cleared: true, terminology: 0 });
    cl.send({ type: 'health', data: {} });
    expect((await cl.next()).type).toBe('health');
    cl.ws.close();
  });

  it('actions that need a recording answer session_not_started before start', async () => {
    const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
    for (const action of ['set_name', 'set_summary', 'retranslate', 'switch_language']) {
      cl.send(vt(action, { name: 'x', language: 'en' }));
      expect((await cl.next()).data).toMatchObject({ error_code: 'session_not_started', details: { action } });
    }
    cl.ws.close();
  });

  it.skipIf(!haveAudio)(
    'realtime_translation off: no live translations; the task is translated while processing, with the glossary',
    async () => {
      const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
      cl.send(vt('config', { translation_dict: { es: [{ source: 'and', target: 'GLOSARIO' }] } }));
      await event(cl, 'config_updated');
      const started = await startSession(cl, { translation_languages: ['es'], realtime_translation: false });
      await streamPcm(cl, jfkPcm().subarray(0, 32_000 * 4), 2);
      cl.send(vt('stop'));
      const done = await event(cl, 'task_complete', 60_000);
      expect(done.data.status).toBe('completed');
      expect(cl.messages.some((m) => m.data?.action === 'translation')).toBe(false);
      const finals = cl.messages.filter((m) => m.data?.action === 'result' && m.data.origin.is_final).map((m) => m.data.origin);
      // Finals are readable text ("And so my fellow Americans ..."): the dictionary matches in any case.
      const saysAnd = (text: string) =>
        text
          .toLowerCase()
          .split(/[^a-z']+/)
          .includes('and');
      expect(finals.some((f) => saysAnd(f.text))).toBe(true);
      const store = t.app.deps.tasks.store;
      const translator = t.app.deps.engines.find({ kind: 'translator', from: 'en', to: 'es' })!;
      for (const f of finals) {
        const stored = await store.getSentence(started.data.task_id, f.sid);
        const expected = saysAnd(f.text)
          ? expect.stringContaining('GLOSARIO')
          : await translator.translate(f.text, { from: 'en', to: 'es' });
        expect(stored?.translations?.es).toEqual(expected);
      }
      cl.ws.close();
    },
    60_000,
  );

  it.skipIf(!haveAudio)(
    'glossary, set_name, set_summary, switch_language and retranslate during a jfk session',
    async () => {
      const pcm = jfkPcm();
      const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
      // Sent before start: applies to the recordings of this connection.
      cl.send(
        vt('config', {
          fuzzy_correction: { en: [{ correct: 'nation', incorrect: ['country'], case_insensitive: true }] },
          translation_dict: { es: [{ source: 'nation', target: 'patria' }] },
        }),
      );
      expect((await event(cl, 'config_updated')).data).toMatchObject({ fuzzy_correction: 1, translation_dict: 1, languages: ['en', 'es'] });
      const started = await startSession(cl, { transcription_languages: ['en', 'en-GB'], translation_languages: ['es'] });
      const taskId = started.data.task_id as string;

      cl.send(vt('set_name', { name: '   ' }));
      expect((await cl.next()).data).toMatchObject({ error_code: 'invalid_parameter', details: { field: 'name' } });
      cl.send(vt('set_name', { name: 'y'.repeat(61) }));
      expect((await cl.next()).data).toMatchObject({ error_code: 'invalid_parameter', details: { field: 'name' } });
      cl.send(vt('set_name', { name: '  Ask not  ' }));
      expect((await event(cl, 'name_updated')).data).toEqual({
        action: 'name_updated',
        task_id: taskId,
        name: 'Ask not',
        name_source: 'user',
      });

      cl.send(vt('set_summary', { summary_template: 'no-such-template' }));
      const badTemplate = (await cl.next()).data;
      expect(badTemplate).toMatchObject({ error_code: 'invalid_parameter', details: { field: 'summary_template' } });
      expect(badTemplate.details.valid_values).toContain('general-summary');
      cl.send(vt('set_summary', { summary_mode: 'custom', summary_template: 'general-summary' }));
      expect((await cl.next()).data).toMatchObject({ error_code: 'summary_mode_field_mismatch' });
      cl.send(vt('set_summary', { summary_template: 'general-summary', summary_language: 'en' }));
      expect((await event(cl, 'summary_updated')).data).toMatchObject({
        task_id: taskId,
        enabled: true,
        summary_mode: 'builtin',
        summary_template: 'general-summary',
        summary_language: 'en',
      });

      cl.send(vt('switch_language', { language: 'fr' }));
      expect((await cl.next()).data).toMatchObject({
        error_code: 'invalid_parameter',
        details: { field: 'language', valid_values: ['en', 'en-GB'] },
      });

      // Half the speech in en, the rest in en-GB (the same recognizer serves both tags).
      let switched: Promise<Msg> | null = null;
      await streamPcm(cl, pcm, 2, (ms) => {
        if (ms >= 5500 && !switched) {
          cl.send(vt('switch_language', { language: 'en-GB' }));
          switched = event(cl, 'language_switched', 60_000); // answered once recognition reaches the switch: late on a busy machine
        }
      });
      expect((await (switched as unknown as Promise<Msg>)).data).toMatchObject({ language: 'en-GB', previous_language: 'en' });
      const finals = () => cl.messages.filter((m) => m.data?.action === 'result' && m.data.origin.is_final).map((m) => m.data.origin);
      const translatedNation = (ms: Msg[]) =>
        finals().some((o) => o.text.includes('nation') && ms.some((m) => m.data?.action === 'translation' && m.data.sid === o.sid));
      // Recognition may lag behind the audio on a busy machine: wait for the corrected sentence.
      await waitFor(cl, (ms) => finals().at(-1)?.language === 'en-GB' && translatedNation(ms), 30_000);
      expect(finals().length).toBeGreaterThan(0);
      const text = finals()
        .map((o) => o.text)
        .join(' ')
        .toLowerCase();
      expect(text).toContain('nation');
      expect(text).not.toContain('country');
      expect(finals().some((o) => o.language === 'en')).toBe(true);
      expect(finals().at(-1)?.language).toBe('en-GB');
      const withNation = finals().find((o) => o.text.includes('nation'));
      const translated = cl.messages.find((m) => m.data?.action === 'translation' && m.data.sid === withNation.sid);
      expect(translated?.data.text).toContain('patria');

      cl.send(vt('retranslate', { sid: 999 }));
      expect((await errorWith(cl, 'invalid_parameter')).data.details.field).toBe('sid');
      cl.send(vt('retranslate', { target_languages: ['de'] }));
      expect((await errorWith(cl, 'invalid_parameter')).data.details).toMatchObject({ field: 'target_languages', valid_values: ['es'] });
      // After the dictionary changes, retranslating the sentence uses the new entry.
      cl.send(vt('config', { translation_dict: { es: [{ source: 'nation', target: 'tierra natal' }] } }));
      await event(cl, 'config_updated');
      cl.send(vt('retranslate', { sid: withNation.sid }));
      const again = await cl.next((m) => m.data?.action === 'translation' && m.data.sid === withNation.sid, 10_000);
      expect(again.data.text).toContain('tierra natal');
      expect((await event(cl, 'retranslate_done', 10_000)).data).toMatchObject({
        sids: [withNation.sid],
        target_languages: ['es'],
        total_updated: 1,
        failed: 0,
      });

      cl.send(vt('stop'));
      const done = await event(cl, 'task_complete', 60_000);
      expect(done.data.status).toBe('completed');
      const summaryAt = cl.messages.findIndex((m) => m.data?.action === 'summary_done');
      expect(summaryAt).toBeGreaterThan(-1);
      expect(summaryAt).toBeLessThan(cl.messages.indexOf(done));
      expect(cl.messages[summaryAt]!.data).toMatchObject({
        task_id: taskId,
        summary_mode: 'builtin',
        summary_template: 'general-summary',
        summary_plain_text: false,
        tokens_used: { input: expect.any(Number), output: expect.any(Number) },
      });
      const store = t.app.deps.tasks.store;
      const task = await store.getTask(taskId);
      expect(task).toMatchObject({ title: 'Ask not', nameSource: 'user', summaryTemplate: 'general-summary' });
      const transcript = await store.getTranscript(taskId);
      expect(transcript?.summary).toBeTruthy();
      const stored = await store.getSentence(taskId, withNation.sid);
      expect(stored?.translations?.es).toContain('tierra natal');
      cl.ws.close();
    },
    120_000,
  );
});
