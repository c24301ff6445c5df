/**
 * Search latency at library scale (part of `npm run bench:tasks`): the bench's tasks get
 * transcripts (SENTENCES each, words drawn from a skewed vocabulary so a few words are in
 * most tasks and most words in few, as in speech), every fourth a French translation; then
 * GET /api/v1/search is timed for rare and common words, several words, a phrase, a prefix,
 * filters and a later page. Target: p95 under 100 ms over all of them. With a baseline (an
 * older commit's app on the same data) both are timed in turn and the first pages compared:
 * `same page` counts the requests whose first page of hits the two answered alike.
 */
import { loadavg } from 'node:os';
import type { TaskModule } from '../src/tasks/module.js';
import { rng } from './support.js';
import { percentile } from './word-delay.js';

const SENTENCES = 10;
const WORDS_PER_SENTENCE = 10;
const VOCABULARY = 3000;
const RUNS = 60;
export const SEARCH_P95_TARGET_MS = 100;

const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tu', 'sa', 'vel', 'dor', 'an', 'pi', 'qu', 'zet', 'bro', 'nim', 'es', 'fal'];
/** Word i of the vocabulary: three syllables spelled from i (distinct for every i < 16^3). */
const word = (i: number) => SYLLABLES[i % 16]! + SYLLABLES[Math.floor(i / 16) % 16]! + SYLLABLES[Math.floor(i / 256) % 16]!;

export async function benchSearch(o: {
  base: string;
  key: string;
  tasks: TaskModule;
  ids: readonly string[];
  /** An older commit's app on the same data, timed in turn with this one (bench/baseline.ts). */
  baseline?: { commit: string; url: string };
}): Promise<number> {
  const rand = rng(42);
  // Skewed: word 0 is in about a third of the sentences, word 2999 in a handful.
  const pick = () => word(Math.floor(rand() ** 3 * VOCABULARY));
  const sentence = () => Array.from({ length: WORDS_PER_SENTENCE }, pick).join(' ');
  const t0 = Date.now();
  for (const [i, id] of o.ids.entries()) {
    const rows = Array.from({ length: SENTENCES }, (_, k) => ({
      sid: k + 1,
      origin: `${sentence()}.`,
      startMs: k * 5000,
      endMs: k * 5000 + 4000,
    }));
    await o.tasks.store.appendSentences(id, rows);
    if (i % 4 === 0)
      await o.tasks.store.setTranslations(
        id,
        'fr',
        rows.map((r) => ({ sid: r.sid, text: `${sentence()}.` })),
      );
  }
  const entries = o.ids.length * SENTENCES * 1.25;
  console.log(
    `\nSearch: indexed ${o.ids.length} transcripts (${entries} sentences and translations) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );

  const kinds: [string, (i: number) => string][] = [
    ['rare word', (i) => `q=${word(2000 + i)}`],
    ['common word', (i) => `q=${word(i % 5)}`],
    ['two words', (i) => `q=${word(i % 40)}+${word(100 + i)}`],
    ['two common words', (i) => `q=${word(i % 5)}+${word(5 + (i % 5))}`],
    ['phrase', (i) => `q=%22${word(i % 20)}+${word((i + 1) % 20)}%22`],
    ['prefix', (i) => `q=${SYLLABLES[i % 16]}${SYLLABLES[(i >> 4) % 16]}*`],
    ['common word, language=fr', (i) => `q=${word(i % 5)}&language=fr`],
    // Three of the bench's seven days of tasks: the filter joins tasks.
    ['common word, from/to', (i) => `q=${word(i % 5)}&from=2025-01-03&to=2025-01-05`],
    ['common word, page 20', (i) => `q=${word(i % 5)}&page=20`],
  ];
  const servers = [...(o.baseline ? [{ name: `old ${o.baseline.commit}`, base: o.baseline.url }] : []), { name: 'new', base: o.base }];
  // The HTTP connections idled while indexing (a server may have closed them): one untimed request first.
  for (const server of servers) {
    for (let attempt = 0; ; attempt++) {
      try {
        await (await fetch(`${server.base}/api/v1/search?q=${word(0)}`, { headers: { 'x-api-key': o.key } })).arrayBuffer();
        break;
      } catch (err) {
        if (attempt >= 2) throw err;
      }
    }
  }
  const all = servers.map(() => [] as number[]);
  const load = () =>
    loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
  console.log(
    `Search latency (request to last byte), ${RUNS} sequential requests per query kind${o.baseline ? ' and code, old and new taking turns' : ''}, load average ${load()}:`,
  );
  for (const [name, query] of kinds) {
    const samples = servers.map(() => [] as number[]);
    const totals = servers.map(() => 0);
    let samePage = 0;
    for (let i = 0; i < RUNS + 5; i++) {
      const pages: string[][] = [];
      // Taking turns at going first, so neither code always meets a cache the other warmed.
      const order = servers.map((_, k) => k);
      if (i % 2) order.reverse();
      for (const k of order) {
        const start = performance.now();
        const res = await fetch(`${servers[k]!.base}/api/v1/search?${query(i)}`, { headers: { 'x-api-key': o.key } });
        const body = (await res.json()) as {
          data?: { task_id: string; field: string; sid: number | null; language: string | null }[];
          meta?: { total: number };
        };
        const ms = performance.now() - start;
        if (res.status !== 200) throw new Error(`${servers[k]!.name} search answered ${res.status}: ${JSON.stringify(body)}`);
        if (i >= 5) samples[k]!.push(ms); // the first runs warm caches
        totals[k]! += body.meta?.total ?? 0;
        pages[k] = (body.data ?? []).map((h) => `${h.task_id}:${h.field}:${h.sid}:${h.language}`);
      }
      if (pages.length === 2 && pages[0]!.join() === pages[1]!.join()) samePage++;
    }
    const cells = servers.map((_, k) => {
      all[k]!.push(...samples[k]!);
      const sorted = samples[k]!.sort((a, b) => a - b);
      const hits = String(Math.round(totals[k]! / (RUNS + 5))).padStart(6);
      return `${servers[k]!.name}: ~${hits} hits p50 ${percentile(sorted, 50).toFixed(1).padStart(7)} p95 ${percentile(sorted, 95).toFixed(1).padStart(7)} ms`;
    });
    const same = o.baseline ? ` | first page alike ${samePage}/${RUNS + 5}` : '';
    console.log(`  ${name.padEnd(26)} ${cells.join(' | ')}${same} | load ${loadavg()[0]!.toFixed(1)}`);
  }
  const p95s = all.map((samples) =>
    percentile(
      samples.sort((a, b) => a - b),
      95,
    ),
  );
  for (const [k, server] of servers.entries()) {
    console.log(
      `  ${server.name}: all ${all[k]!.length} searches p50 ${percentile(all[k]!, 50).toFixed(1)} ms  p95 ${p95s[k]!.toFixed(1)} ms (target < ${SEARCH_P95_TARGET_MS} ms: ${p95s[k]! < SEARCH_P95_TARGET_MS ? 'met' : 'MISSED'})`,
    );
  }
  console.log(`  load average ${load()}`);
  return p95s.at(-1)!;
}
