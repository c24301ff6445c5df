/**
 * Import a file with a Spanish translation and a summary: the multipart upload (202), the
 * progress stream until completed, then the transcript and summary from the history stream.
 *
 *   PARLEY_API_KEY=svc_... npx tsx examples/import-with-translation-and-summary.ts ../shared/audio/jfk.wav
 *
 * mp3, wav or m4a (convert others: ffmpeg -i in.flac out.wav). PARLEY_BASE_URL defaults to
 * http://localhost:8080.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** Reads a text/event-stream response as {event, data} pairs. */
async function* events(res: Response): AsyncGenerator<{ event: string; data: any }> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let cut = buffer.indexOf('\n\n');
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      cut = buffer.indexOf('\n\n');
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
      if (event) yield { event, data: data ? JSON.parse(data) : null };
    }
  }
}

export async function importWithTranslationAndSummary(o: { baseUrl: string; apiKey: string; file: string; log?: (s: string) => void }) {
  const log = o.log ?? ((s: string) => console.log(s));
  const headers = { 'X-API-Key': o.apiKey };
  const form = new FormData();
  form.append('file', new Blob([readFileSync(o.file)]), basename(o.file));
  form.append('transcription_languages', JSON.stringify(['en-US']));
  form.append('translation_languages', JSON.stringify(['es']));
  form.append('recognition_mode', 'single');
  form.append('summary_template', 'general-summary');
  const res = await fetch(`${o.baseUrl}/api/v1/imports`, { method: 'POST', headers, body: form });
  const created = (await res.json()) as { data: any };
  if (res.status !== 202) throw new Error(`import refused: ${res.status} ${created.data.error_code}: ${created.data.message}`);
  log(`import ${created.data.import_id} accepted`);

  let taskId: string | null = null;
  const progress = await fetch(`${o.baseUrl}/api/v1/sse/imports/${created.data.import_id}/progress`, { headers });
  for await (const e of events(progress)) {
    if (e.event === 'progress') log(`  ${e.data.stage ?? e.data.status} ${e.data.progress}%`);
    if (e.event === 'failed') throw new Error(`import failed: ${e.data.error_code}`);
    if (e.event === 'completed') {
      taskId = e.data.task_id;
      break;
    }
  }
  if (!taskId) throw new Error('the progress stream ended without a result');

  const sentences: { origin: string; translation: string | null }[] = [];
  let summary = '';
  const history = await fetch(`${o.baseUrl}/api/v1/sse/history/transcribe/${taskId}`, { headers });
  for await (const e of events(history)) {
    if (e.event === 'init_sentence') sentences.push({ origin: e.data.origin, translation: e.data.translations?.es ?? null });
    if (e.event === 'init_summary') summary = e.data.text;
  }
  for (const s of sentences) log(`${s.origin}\n  es: ${s.translation}`);
  log(`summary: ${summary}`);
  return { taskId, sentences, summary };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  const apiKey = process.env.PARLEY_API_KEY;
  if (!file || !apiKey) {
    console.error('usage: PARLEY_API_KEY=svc_... npx tsx examples/import-with-translation-and-summary.ts <mp3|wav|m4a>');
    process.exit(2);
  }
  importWithTranslationAndSummary({ baseUrl: process.env.PARLEY_BASE_URL ?? 'http://localhost:8080', apiKey, file }).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
