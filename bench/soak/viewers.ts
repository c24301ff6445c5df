/**
 * Broadcast viewers: `GET /broadcast/{token}/text` SSE streams (raw node:http, one socket
 * each) that keep the final captions they receive by sid (origin, and the translation into
 * the broadcast's language) and reconnect after a second when cut before `ended`. A
 * reconnect replays the latest 5 finals, so a short cut loses nothing; a longer one shows as
 * missing sids in the report.
 */
import http from 'node:http';
import { countError, sleep } from './common.js';

export interface Viewer {
  origins: Set<number>;
  translations: Set<number>;
  connects: number;
  refusals: number;
  ended: boolean;
}

export const viewers: Viewer[] = [];

function stream(url: string, v: Viewer): Promise<void> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      if (res.statusCode !== 200) {
        v.refusals++;
        countError(`viewer HTTP ${res.statusCode}`);
        res.resume();
        res.on('end', resolve);
        return;
      }
      v.connects++;
      res.setEncoding('utf8');
      let buf = '';
      res.on('data', (chunk: string) => {
        buf += chunk;
        for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const event = /^event: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (event === 'ended') v.ended = true;
          if (!data || (event !== 'origin' && event !== 'translation')) continue;
          const d = JSON.parse(data) as { sid: number; text: string; is_final: boolean };
          if (!d.is_final) continue;
          const set = event === 'origin' ? v.origins : v.translations;
          // A final of empty text withdraws the sentence (docs/broadcasts.md).
          if (d.text.trim() === '') set.delete(d.sid);
          else set.add(d.sid);
        }
      });
      res.on('error', () => {});
      res.on('close', resolve);
    });
    req.on('error', (err) => {
      countError(`viewer: ${err.message}`);
      resolve();
    });
  });
}

/** `count` viewers until the broadcast ends (or `until`), connecting 20 at a time. */
export async function watch(url: string, count: number, until: number): Promise<void> {
  const all = Array.from({ length: count }, async (_, i) => {
    const v: Viewer = { origins: new Set(), translations: new Set(), connects: 0, refusals: 0, ended: false };
    viewers.push(v);
    await sleep(Math.floor(i / 20) * 100);
    while (!v.ended && Date.now() < until) {
      await stream(url, v);
      if (!v.ended) await sleep(1000);
    }
  });
  await Promise.all(all);
}
