/**
 * Floating-subtitle delivery: one live session's finals and translations to N audience
 * viewers on the subtitle SSE (real HTTP clients, real bus: Redis when REDIS_URL is set with
 * DATABASE_URL). Prints events per second delivered to all viewers and the per-event delay
 * from publish to a viewer's parsed event (p50/p99), with the load average.
 *
 *   BENCH_VIEWERS=50 BENCH_EVENTS=2000 npm run -s bench:subtitles
 */
import { loadavg } from 'node:os';
import { enableShare, exchange, openSubtitles, publishedLiveRecording } from '../test/subtitles/support.js';
import { startTestApp } from '../test/support/app.js';
import { benchBackendName } from './support.js';

const VIEWERS = Number(process.env.BENCH_VIEWERS ?? 50);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const pg = Boolean(process.env.DATABASE_URL);
  const redis: Record<string, string> = pg && process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
  const bench = await startTestApp({
    backend: pg ? 'postgres' : 'sqlite',
    contract: false, // as production runs: no test-only schema check on every event
    // Every bench viewer comes from this one address: the per-source seat share is lifted.
    env: { PARLEY_SUBTITLE_MAX_VIEWERS: String(VIEWERS), PARLEY_SUBTITLE_SOURCE_SEAT_PERCENT: '100', ...redis },
  });
  const { app } = bench;
  const k = await app.deps.keys.createKey({ name: 'bench subtitles' });
  const { taskId, publisher: pub } = await publishedLiveRecording(
    bench,
    { accountId: k.account_id, keyId: k.key_id },
    { title: 'bench', translationLanguages: ['es'], settleMs: 100 },
  );
  const secret = (await enableShare(bench.url, k.api_key, taskId)).body.data.share_secret as string;
  const viewers: { token: string; client: Awaited<ReturnType<typeof openSubtitles>> }[] = [];
  for (let i = 0; i < VIEWERS; i++) {
    // 30 exchanges per minute per recording: the bench reuses tokens beyond that.
    const token: string = i < 25 ? (await exchange(bench.url, taskId, { share_secret: secret })).body.data.token : viewers[i % 25]!.token;
    const client = await openSubtitles(bench.url, taskId, token);
    if (client.status !== 200) throw new Error(`viewer ${i}: ${client.status} ${JSON.stringify(client.body)}`);
    viewers.push({ token, client });
  }
  const started = performance.now();
  for (let sid = 0; sid < EVENTS / 2; sid++) {
    const at = performance.now().toFixed(3);
    pub.publish({
      event: 'result',
      data: {
        origin: {
          sid,
          language: 'en',
          text: at,
          is_final: true,
          speaker_id: null,
          detected_language: null,
          start_time: '00:00',
          end_ms: 0,
        },
      },
    });
    pub.publish({ event: 'translation', data: { sid, language: 'es', text: at, is_final: true } });
    // A producer at the pace of events, not one synchronous burst: let the loop breathe.
    if (sid % 20 === 0) await new Promise((r) => setImmediate(r));
  }
  pub.end();
  await Promise.all(viewers.map((v) => v.client.ended));
  const elapsed = (performance.now() - started) / 1000;
  // Per event and viewer: from publish (its text) to the viewer's parsed event.
  const delays: number[] = [];
  for (const v of viewers)
    for (const e of v.client.events) if (e.event === 'origin' || e.event === 'translation') delays.push((e.at ?? 0) - Number(e.data.text));
  const delivered = delays.length;
  const sorted = delays.sort((a, b) => a - b);
  const [l1, l5, l15] = loadavg().map((x) => x.toFixed(2));
  console.log(`subtitle fan-out (${benchBackendName()}${'REDIS_URL' in redis ? ' + Redis bus' : ', in-process bus'})`);
  console.log(`  viewers ${VIEWERS}, events published ${EVENTS}, delivered ${delivered} (expected ${VIEWERS * EVENTS})`);
  console.log(`  ${(delivered / elapsed).toFixed(0)} events/s delivered to all viewers (${elapsed.toFixed(2)} s)`);
  console.log(`  delay publish -> parsed by a viewer: p50 ${pct(sorted, 50).toFixed(2)} ms, p99 ${pct(sorted, 99).toFixed(2)} ms`);
  console.log(`  load average ${l1} ${l5} ${l15} (cores shared with other work; timings on a busy machine mean little)`);
  await bench.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
