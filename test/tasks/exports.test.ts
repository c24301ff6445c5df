import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type VttNode, WebVTTParser } from 'webvtt-parser';
import { api, backends } from '../support/app.js';
import { sampleM4a, seedTask, startTaskApp, type TaskTestApp } from './harness.js';

/** Text that breaks naive writers: commas, quotes, a line break, markup, an arrow, Chinese. */
const TRICKY = [
  { sid: 1, origin: '大家好，歡迎參加會議。', startMs: 0, endMs: 2500, speakerId: 'spk_0' },
  { sid: 2, origin: 'He said "hi", then left.', startMs: 2500, endMs: 5000, speakerId: 'spk_1' },
  { sid: 3, origin: 'line one\nline two', startMs: 5000, endMs: 7000, speakerId: 'spk_0' },
  { sid: 4, origin: 'a < b && c > d --> e', startMs: 3_600_000 + 61_500, endMs: 3_600_000 + 64_000, speakerId: 'spk_1' },
  { sid: 5, origin: 'zero length', startMs: 9000, endMs: 9000, speakerId: 'spk_1' },
];

function tmp(name: string, content: string | Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-export-'));
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

/** ffmpeg reads the subtitle file and converts it to ASS; returns the ASS dialogue texts. */
function ffmpegDialogues(path: string): string[] {
  const out = `${path}.ass`;
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-i', path, out]);
  const ass = readFileSync(out, 'utf8');
  rmSync(join(path, '..'), { recursive: true, force: true });
  return ass
    .split('\n')
    .filter((l) => l.startsWith('Dialogue:'))
    .map((l) => l.split(',').slice(9).join(',').trim());
}

const ENTITIES = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('webvtt-parser/html-entities.json'), 'utf8')) as Record<
  string,
  string
>;

function nodeText(nodes: VttNode[]): string {
  return nodes.map((n) => (n.type === 'text' ? (n.value ?? '') : nodeText(n.children ?? []))).join('');
}

describe.each(backends())('transcript and audio export (%s)', (backend) => {
  let t: TaskTestApp;
  let taskId: string;
  beforeAll(async () => {
    t = await startTaskApp(backend);
    const task = await seedTask(t, {
      title: '週會 "Q3", final',
      recognitionMode: 'multi_speaker',
      translationLanguages: ['fr', 'zh-TW'],
      sentences: TRICKY,
      audio: true,
    });
    taskId = task.taskId;
    await t.mod.store.setTranslations(taskId, 'fr', [
      { sid: 1, text: 'Bonjour à tous, bienvenue.' },
      { sid: 2, text: 'Il a dit « salut », puis est parti.' },
      { sid: 3, error: 'llm_timeout' },
    ]);
    // A current alias: exports show it instead of the original id.
    const r = await api(t.url, 'PATCH', `/api/v1/tasks/${taskId}/speakers/rename`, {
      key: t.keyA,
      body: { speaker_id: 'spk_0', new_label: '主持人 Anna' },
    });
    expect(r.status).toBe(200);
  });
  afterAll(() => t?.close());

  const get = (query: string, key = t.keyA) =>
    fetch(`${t.url}/api/v1/tasks/${taskId}/transcript/export${query}`, { headers: { 'x-api-key': key } });

  it('SRT is read by ffmpeg with every cue, the current labels and the Chinese text', async () => {
    const res = await get('?format=srt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-subrip; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="__ _Q3_, final.srt"; filename*=UTF-8''${encodeURIComponent('週會 _Q3_, final.srt')}`,
    );
    const text = await res.text();
    expect(text).toContain('01:01:01,500 --> 01:01:04,000');
    const dialogues = ffmpegDialogues(tmp('t.srt', text));
    expect(dialogues).toHaveLength(TRICKY.length);
    expect(dialogues[0]).toBe('主持人 Anna: 大家好，歡迎參加會議。');
    expect(dialogues.join('\n')).toContain('spk_1: He said "hi", then left.');
    expect(dialogues.join('\n')).toContain('line one\\Nline two');
  });

  it('VTT passes a WebVTT parser without errors and is read by ffmpeg; speakers are voice spans', async () => {
    const res = await get('?format=vtt');
    expect(res.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
    const text = await res.text();
    // The full entity table makes the parser decode character references as browsers do.
    const parsed = new WebVTTParser(ENTITIES).parse(text, 'subtitles');
    expect(parsed.errors).toEqual([]);
    expect(parsed.cues).toHaveLength(TRICKY.length);
    const first = parsed.cues[0]!;
    expect(first.startTime).toBe(0);
    expect(first.endTime).toBe(2.5);
    const voice = first.tree.children[0]!;
    expect(voice).toMatchObject({ type: 'object', name: 'v', value: '主持人 Anna' });
    expect(nodeText(first.tree.children)).toBe('大家好，歡迎參加會議。');
    // Cues come in time order (WebVTT requires it), so the one-hour sentence is last.
    const fourth = parsed.cues[4]!;
    expect(fourth.startTime).toBeCloseTo(3661.5);
    expect(nodeText(fourth.tree.children)).toBe('a < b && c > d --> e');
    // Zero-length sentences still make a valid cue (end after start).
    expect(parsed.cues[3]!.endTime).toBeGreaterThan(parsed.cues[3]!.startTime);
    expect(ffmpegDialogues(tmp('t.vtt', text))).toHaveLength(TRICKY.length);
  });

  it('CSV follows RFC 4180 and round-trips Chinese, commas, quotes and line breaks', async () => {
    const res = await get('?format=csv');
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    const buf = Buffer.from(await res.arrayBuffer());
    expect([...buf.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = parseCsv(buf, { bom: true, columns: true, relax_column_count: false }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual(['sid', 'start', 'end', 'speaker', 'text', 'translation_fr', 'translation_zh-TW']);
    expect(rows.map((r) => r.text)).toEqual(TRICKY.map((s) => s.origin));
    expect(rows[0]).toMatchObject({ sid: '1', start: '00:00:00.000', end: '00:00:02.500', speaker: '主持人 Anna' });
    expect(rows[1]!.translation_fr).toBe('Il a dit « salut », puis est parti.');
    expect(rows[2]!.translation_fr).toBe('');
    // Records end in CRLF; the line break inside a quoted field is kept as is.
    expect(buf.toString('utf8')).toMatch(/\r\n$/);
    const one = await get('?format=csv&language=fr&speakers=false');
    const oneRows = parseCsv(Buffer.from(await one.arrayBuffer()), { bom: true, columns: true }) as Record<string, string>[];
    expect(Object.keys(oneRows[0]!)).toEqual(['sid', 'start', 'end', 'text', 'translation_fr']);
  });

  it('SBV and TXT have one entry per sentence with times and labels', async () => {
    const sbv = await (await get('?format=sbv')).text();
    const blocks = sbv.trim().split('\n\n');
    expect(blocks).toHaveLength(TRICKY.length);
    expect(blocks[0]).toBe('0:00:00.000,0:00:02.500\n主持人 Anna: 大家好，歡迎參加會議。');
    expect(blocks[4]!.split('\n')[0]).toBe('1:01:01.500,1:01:04.000');
    const res = await get('');
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const txt = await res.text();
    expect(txt.split('\n')[0]).toBe('[00:00:00] 主持人 Anna: 大家好，歡迎參加會議。');
    expect(txt).toContain('[00:00:05] 主持人 Anna: line one line two');
  });

  it('language writes the translation (original where none); speakers=false drops labels', async () => {
    const res = await get('?format=srt&language=FR&speakers=false');
    expect(res.headers.get('content-disposition')).toContain('.fr.srt');
    const dialogues = ffmpegDialogues(tmp('fr.srt', await res.text()));
    expect(dialogues[0]).toBe('Bonjour à tous, bienvenue.');
    expect(dialogues[2]).toBe('line one\\Nline two');
    for (const q of ['?format=doc', '?language=de', '?speakers=maybe']) {
      const bad = await get(q);
      expect(bad.status, q).toBe(422);
      expect(((await bad.json()) as { data: { error_code: string } }).data.error_code).toBe('validation_failed');
    }
    expect((await get('?format=srt', t.keyB)).status).toBe(404);
  });

  it('audio export: the stored M4A as is, MP3 made by ffmpeg; 425 before audio exists; 404 for others', async () => {
    const m4a = await fetch(`${t.url}/api/v1/tasks/${taskId}/audio/export`, { headers: { 'x-api-key': t.keyA } });
    expect(m4a.status).toBe(200);
    expect(m4a.headers.get('content-type')).toBe('audio/mp4');
    expect(m4a.headers.get('content-disposition')).toContain('.m4a');
    expect(Buffer.from(await m4a.arrayBuffer()).equals(sampleM4a())).toBe(true);
    const mp3 = await fetch(`${t.url}/api/v1/tasks/${taskId}/audio/export?format=mp3`, { headers: { 'x-api-key': t.keyA } });
    expect(mp3.status).toBe(200);
    expect(mp3.headers.get('content-type')).toBe('audio/mpeg');
    const path = tmp('a.mp3', Buffer.from(await mp3.arrayBuffer()));
    const probe = JSON.parse(
      execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=format_name,duration', '-of', 'json', path]).toString(),
    ) as { format: { format_name: string; duration: string } };
    expect(probe.format.format_name).toBe('mp3');
    expect(Number(probe.format.duration)).toBeGreaterThan(2.5);
    const bad = await api(t.url, 'GET', `/api/v1/tasks/${taskId}/audio/export?format=wav`, { key: t.keyA });
    expect(bad.status).toBe(422);
    const noAudio = await seedTask(t);
    const r = await api(t.url, 'GET', `/api/v1/tasks/${noAudio.taskId}/audio/export`, { key: t.keyA });
    expect(r.status).toBe(425);
    expect(r.body.data.error_code).toBe('recording_audio_not_ready');
    expect((await api(t.url, 'GET', `/api/v1/tasks/${taskId}/audio/export`, { key: t.keyB })).status).toBe(404);
  });
});
