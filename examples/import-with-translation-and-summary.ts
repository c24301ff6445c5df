/**
 * Import a file with a Spanish translation and a summary, with the typed client (src/client):
 * the upload (202), the progress stream until completed, then the transcript and summary from
 * the history stream.
 *
 *   PARLEY_API_KEY=svc_... npx tsx examples/import-with-translation-and-summary.ts examples/audio/sense-and-sensibility.wav
 *
 * mp3, wav or m4a (convert others: ffmpeg -i in.flac out.wav). PARLEY_BASE_URL defaults to
 * http://localhost:8080 (the server's PORT is 8080 unless set).
 */
import { importFile, nodeClient } from '../src/client/node.js';
import { exampleEnv, runExample } from './run.js';

export async function importWithTranslationAndSummary(o: { baseUrl: string; apiKey: string; file: string; log?: (s: string) => void }) {
  const log = o.log ?? ((s: string) => console.log(s));
  const parley = nodeClient({ baseUrl: o.baseUrl, apiKey: o.apiKey });
  const created = await parley.imports.create({
    ...(await importFile(o.file)),
    transcription_languages: ['en-US'],
    translation_languages: ['es'],
    recognition_mode: 'single',
    summary_template: 'general-summary',
  });
  log(`import ${created.import_id} accepted`);
  // Throws a ParleyError with the import's error_code if it fails.
  const done = await parley.imports.waitFor(created.import_id, (p) => log(`  ${p.stage ?? p.status} ${p.progress}%`));
  const taskId = done.task_id;
  if (!taskId) throw new Error('completed without a task');

  const sentences: { origin: string; translation: string | null }[] = [];
  let summary = '';
  for await (const e of await parley.tasks.history(taskId)) {
    if (e.event === 'init_sentence') sentences.push({ origin: e.data.origin, translation: e.data.translations?.es ?? null });
    if (e.event === 'init_summary') summary = e.data.text;
  }
  for (const s of sentences) log(`${s.origin}\n  es: ${s.translation}`);
  log(`summary: ${summary}`);
  return { taskId, sentences, summary };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const env = exampleEnv('import-with-translation-and-summary.ts', '<mp3|wav|m4a>');
  runExample(() => importWithTranslationAndSummary(env), env.baseUrl);
}
