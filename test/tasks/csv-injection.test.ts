/**
 * CSV injection (issue 19): a cell that starts with =, +, -, @, a tab or a carriage return
 * would run as a formula in a spreadsheet. The export neutralizes it as OWASP recommends (a
 * single quote in front, the cell quoted), whatever wrote it: a speaker label set through the
 * API, recognized text (after a glossary correction), a translation.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyGlossary } from '../../src/glossary/apply.js';
import { api, backends } from '../support/app.js';
import { seedTask, startTaskApp, type TaskTestApp } from './harness.js';

const HYPERLINK = '=HYPERLINK("http://example.com","x")';
// What recognition stores after the caller's glossary corrected "hello" into a formula.
const CORRECTED = applyGlossary('hello there', 'en-US', {
  terminology: {},
  fuzzyCorrection: { en: [{ correct: '=1+cmd|" /C calc"!A0', incorrect: ['hello'], case_insensitive: true }] },
  translationDict: {},
});

const SENTENCES = [
  { sid: 1, origin: CORRECTED, startMs: 0, endMs: 1000, speakerId: 'spk_0' },
  { sid: 2, origin: '+SUM(1,2)', startMs: 1000, endMs: 2000, speakerId: 'spk_1' },
  { sid: 3, origin: '-2+3', startMs: 2000, endMs: 3000, speakerId: 'spk_1' },
  { sid: 4, origin: '@SUM(1,2)', startMs: 3000, endMs: 4000, speakerId: 'spk_1' },
  { sid: 5, origin: '\t=1+1', startMs: 4000, endMs: 5000, speakerId: 'spk_1' },
  { sid: 6, origin: '\r=1+1', startMs: 5000, endMs: 6000, speakerId: 'spk_1' },
  { sid: 7, origin: 'fine - and = inside is harmless', startMs: 6000, endMs: 7000, speakerId: 'spk_1' },
];

describe.each(backends())('CSV export neutralizes formulas (%s)', (backend) => {
  let t: TaskTestApp;
  let taskId: string;
  beforeAll(async () => {
    t = await startTaskApp(backend);
    const task = await seedTask(t, { recognitionMode: 'multi_speaker', translationLanguages: ['fr'], sentences: SENTENCES });
    taskId = task.taskId;
    await t.mod.store.setTranslations(taskId, 'fr', [{ sid: 2, text: '=WEBSERVICE("http://example.com")' }]);
    const r = await api(t.url, 'PATCH', `/api/v1/tasks/${taskId}/speakers/rename`, {
      key: t.keyA,
      body: { speaker_id: 'spk_0', new_label: HYPERLINK },
    });
    expect(r.status).toBe(200);
  });
  afterAll(() => t?.close());

  it('prefixes a single quote to every cell that would start a formula, keeps it quoted, leaves others as they are', async () => {
    const res = await fetch(`${t.url}/api/v1/tasks/${taskId}/transcript/export?format=csv`, { headers: { 'x-api-key': t.keyA } });
    expect(res.status).toBe(200);
    const text = await res.text();
    // The label as it lies in the file: quoted, quote-prefixed, inner quotes doubled.
    expect(text).toContain(`"'=HYPERLINK(""http://example.com"",""x"")"`);
    expect(CORRECTED).toBe('=1+cmd|" /C calc"!A0 there');
    const rows = parseCsv(text, { bom: true, columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r.text)).toEqual([
      `'${CORRECTED}`,
      "'+SUM(1,2)",
      "'-2+3",
      "'@SUM(1,2)",
      "'\t=1+1",
      "'\r=1+1",
      'fine - and = inside is harmless',
    ]);
    expect(rows[0]!.speaker).toBe(`'${HYPERLINK}`);
    expect(rows[1]!.translation_fr).toBe(`'=WEBSERVICE("http://example.com")`);
    // No cell of the file starts with a formula character once parsed.
    for (const row of rows) for (const cell of Object.values(row)) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    // Every neutralized cell is quoted in the file (a bare 'cell could be unquoted by an editor).
    for (const line of text.split('\r\n')) expect(line).not.toMatch(/(^|,)'/);
  });
});
