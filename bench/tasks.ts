import { loadavg } from 'node:os';
import type { TaskModule } from '../src/tasks/module.js';
import { type BaselineApp, startBaselineApp } from './baseline.js';
import { benchSearch, SEARCH_P95_TARGET_MS } from './search.js';
import { benchBackendName, startBenchApp } from './support.js';

const TASKS = 10_000;
const LIST_RUNS = 200;
const EXPORT_RUNS = 5;
/** A git revision whose search is timed beside this code's on the same data (bench/baseline.ts). */
const SEARCH_BASELINE = process.env.BENCH_SEARCH_BASELINE;
/** Only the search part (after seeding): BENCH_SEARCH_ONLY=1. */
const SEARCH_ONLY = process.env.BENCH_SEARCH_ONLY === '1';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** The task list's latency, printed; the rows for the targets' summary. */
async function listLatency(base: string, key: string, mod: TaskModule, accountId: string, ids: readonly string[]) {
  /** `beforeEach` runs untimed before each request (a write, to measure the list just after one). */
  const list = async (query: string, beforeEach?: (i: number) => Promise<unknown>) => {
    const samples: number[] = [];
    let count = 0;
    let body = new ArrayBuffer(0);
    for (let i = 0; i < LIST_RUNS + 10; i++) {
      await beforeEach?.(i);
      const ms = await timed(async () => {
        const r = await fetch(`${base}/api/v1/tasks${query}`, { headers: { 'x-api-key': key } });
        body = await r.arrayBuffer();
      });
      // Counted outside the timing: parsing 4 MB of JSON is the client's cost, not the service's.
      if (i === 0) count = (JSON.parse(Buffer.from(body).toString('utf8')) as { data: { tasks: unknown[] } }).data.tasks.length;
      if (i >= 10) samples.push(ms); // first runs warm caches and JIT
    }
    samples.sort((a, b) => a - b);
    return { count, p50: percentile(samples, 50), p99: percentile(samples, 99) };
  };
  const hundred = ids
    .slice(0, 100)
    .map((id) => `task_ids[]=${id}`)
    .join('&');
  const rows: [string, Awaited<ReturnType<typeof list>>][] = [
    ['GET /tasks (completed, default)', await list('')],
    ['GET /tasks?status=all', await list('?status=all')],
    ['GET /tasks?status=active', await list('?status=active')],
    ['GET /tasks?status=all&task_ids[]x100', await list(`?status=all&${hundred}`)],
    // Every write bumps the account's list version, so this list is rendered anew each time.
    ['GET /tasks just after a write (rendered)', await list('', (i) => mod.store.setPinned(accountId, [ids[1]!], i % 2 === 0))],
  ];
  console.log(`\nList latency (request to last byte), ${TASKS} tasks in one account (${LIST_RUNS} sequential requests each):`);
  console.log(
    `  load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  for (const [name, r] of rows) {
    console.log(`  ${name.padEnd(40)} ${String(r.count).padStart(6)} tasks  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms`);
  }

  return rows;
}

async function main(): Promise<void> {
  const bench = await startBenchApp();
  const { app } = bench;
  const mod = app.deps.tasks;
  const created = await app.deps.keys.createKey({ name: 'bench' });
  const KEY = created.api_key;
  const principal = { accountId: created.account_id, keyId: created.key_id };
  const base = bench.url;
  const backend = benchBackendName();
  let baseline: BaselineApp | undefined;

  try {
    console.log(`backend ${backend}; seeding ${TASKS} tasks in one account...`);
    const t0 = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < TASKS; i++) {
      const task = await mod.store.createTask({
        ...principal,
        title: `Task ${i}`,
        type: 'transcribe',
        typeSource: i % 3 === 0 ? 'import' : 'realtime',
        recognitionMode: 'single',
        processingStatus: 'processing',
        transcriptionLanguages: ['en-US'],
        translationLanguages: i % 2 ? ['fr', 'de'] : null,
        durationMs: 60_000 + i,
        createdAt: new Date(Date.UTC(2025, 0, 1) + i * 60_000),
      });
      // 95% completed, the rest failed; every 50th pinned.
      await mod.store.setStatus(task.taskId, i % 20 === 0 ? 'failed' : 'completed');
      ids.push(task.taskId);
    }
    await mod.store.setPinned(
      principal.accountId,
      ids.filter((_, i) => i % 50 === 0),
      true,
    );
    console.log(`seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    const rows = SEARCH_ONLY ? [] : await listLatency(base, KEY, mod, principal.accountId, ids);

    if (SEARCH_BASELINE) {
      baseline = await startBaselineApp(SEARCH_BASELINE, bench);
      console.log(`\nSearch baseline: the app at ${baseline.commit} on the same data`);
    }
    const searchP95 = await benchSearch({ base, key: KEY, tasks: mod, ids, baseline });
    if (SEARCH_ONLY) {
      console.log(
        `\nSearch p95 < ${SEARCH_P95_TARGET_MS} ms: ${searchP95.toFixed(1)} ms, ${searchP95 < SEARCH_P95_TARGET_MS ? 'met' : 'MISSED'}.`,
      );
      return;
    }

    // A 3-hour diarized transcript: one sentence every 4 s, two translations.
    const long = await mod.store.createTask({
      ...principal,
      title: 'Three hours',
      type: 'transcribe',
      typeSource: 'realtime',
      recognitionMode: 'multi_speaker',
      processingStatus: 'processing',
      transcriptionLanguages: ['en-US'],
      translationLanguages: ['fr', 'zh-TW'],
      durationMs: 3 * 3600_000,
    });
    const count = (3 * 3600) / 4;
    const sentences = Array.from({ length: count }, (_, i) => ({
      sid: i + 1,
      origin: `Sentence ${i + 1}, with "quotes", commas and some ordinary words to make it realistic in length.`,
      startMs: i * 4000,
      endMs: i * 4000 + 3500,
      speakerId: String((i % 4) + 1),
    }));
    await mod.store.appendSentences(long.taskId, sentences);
    for (const lang of ['fr', 'zh-TW']) {
      await mod.store.setTranslations(
        long.taskId,
        lang,
        sentences.map((s) => ({ sid: s.sid, text: `${lang}: ${s.origin}` })),
      );
    }
    console.log(`\nExport of a 3-hour transcript (${count} sentences, 4 speakers, 2 translations), ${EXPORT_RUNS} runs each:`);
    for (const format of ['txt', 'srt', 'sbv', 'vtt', 'csv']) {
      const samples: number[] = [];
      let bytes = 0;
      for (let i = 0; i < EXPORT_RUNS; i++) {
        samples.push(
          await timed(async () => {
            const r = await fetch(`${base}/api/v1/tasks/${long.taskId}/transcript/export?format=${format}`, {
              headers: { 'x-api-key': KEY },
            });
            bytes = (await r.arrayBuffer()).byteLength;
          }),
        );
      }
      samples.sort((a, b) => a - b);
      console.log(
        `  ${format.padEnd(4)} ${(bytes / 1024).toFixed(0).padStart(6)} KiB  median ${percentile(samples, 50).toFixed(1)} ms  max ${samples.at(-1)!.toFixed(1)} ms`,
      );
    }
    const listP99 = Math.max(...rows.slice(0, 4).map(([, r]) => r.p99));
    console.log(
      `load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
    console.log(`\nTargets: list p99 <= 50 ms (worst unchanged list here ${listP99.toFixed(1)} ms); export <= 1000 ms.`);
    console.log(
      `Search p95 < ${SEARCH_P95_TARGET_MS} ms: ${searchP95.toFixed(1)} ms, ${searchP95 < SEARCH_P95_TARGET_MS ? 'met' : 'MISSED'}.`,
    );
  } finally {
    await baseline?.close();
    await bench.close();
  }
}

await main();
