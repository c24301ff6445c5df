/**
 * Live-caption an audio file as if it were a microphone, with the typed client
 * (src/client): a ticket, the WebSocket, start, 16 kHz mono PCM at real-time pace (ffmpeg
 * converts the file), stop. Prints interim and final captions with their translation.
 *
 *   PARLEY_API_KEY=svc_... npx tsx examples/live-caption-file.ts examples/audio/sense-and-sensibility.wav
 *
 * PARLEY_BASE_URL (default http://localhost:8080) is the REST host; PARLEY_REALTIME_URL
 * (default: the same host) the real-time host; they may differ.
 */
import { liveFromFile, nodeClient } from '../src/client/node.js';
import { exampleEnv, runExample } from './run.js';

export interface LiveOptions {
  baseUrl: string;
  realtimeUrl?: string;
  apiKey: string;
  file: string;
  language?: string;
  translateTo?: string[];
  /** Send faster than real time (tests); 1 = real time. */
  speed?: number;
  onCaption?: (line: string) => void;
}

/** Returns the final sentences and the task id once the session has ended. */
export async function liveCaptionFile(o: LiveOptions): Promise<{ taskId: string; finals: string[] }> {
  const parley = nodeClient({ baseUrl: o.baseUrl, realtimeUrl: o.realtimeUrl, apiKey: o.apiKey });
  const say = o.onCaption ?? ((line: string) => console.log(line));
  const finals: string[] = [];
  const { taskId } = await liveFromFile(
    parley,
    o.file,
    { transcription_languages: [o.language ?? 'en-US'], translation_languages: o.translateTo ?? ['es'] },
    {
      speed: o.speed,
      onError: (err) => say(`error ${err.code}: ${err.message}`),
      onEvent: (e) => {
        switch (e.action) {
          case 'session_started':
            say(`session ${e.data.session_id}, task ${e.data.task_id}`);
            break;
          case 'result':
            if (e.data.origin.is_final) finals.push(e.data.origin.text);
            say(`${e.data.origin.is_final ? 'final  ' : 'interim'} [${e.data.origin.sid}] ${e.data.origin.text}`);
            break;
          case 'translation':
            if (e.data.is_final) say(`        [${e.data.sid}] ${e.data.language}: ${e.data.text}`);
            break;
          default:
            break; // other events (and ones added later) are not needed here
        }
      },
    },
  );
  return { taskId: taskId ?? '', finals };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const env = exampleEnv('live-caption-file.ts', '<audio file>');
  runExample(async () => {
    const r = await liveCaptionFile(env);
    console.log(`done: task ${r.taskId}, ${r.finals.length} sentences`);
  }, env.baseUrl);
}
