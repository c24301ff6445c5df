/**
 * Summary quality and speed (npm run -s bench:summary [-- --show] [-- --quality]): first the
 * rubric comparison of the extractive summarizer and the local LLM (bench/summary-quality.ts;
 * `--show` prints the summaries, `--quality` stops after it), then the extractive summarizer's time per
 * 1,000 words on transcripts of 1,000 to 30,000 words (the 200,000-character limit is about
 * 33,000 English words), and a whole GET /api/v1/sse/regenerate/summary request over HTTP
 * (checks, sentences read from the database, summary, charge) to `done`.
 *
 * The transcripts are made of meeting-like sentences drawn from a fixed vocabulary with a fixed
 * seed, so every run summarizes the same text. The load average is printed: on a busy machine
 * the numbers mean little.
 */
import { loadavg } from 'node:os';
import { ExtractiveSummarizer } from '../src/engines/builtin/extractive-summarizer.js';
import { BUILTIN_TEMPLATES } from '../src/summary-templates/builtin.js';
import { funded, openStream, seed, startSummaryApp } from '../test/summaries/support.js';
import { qualitySection } from './summary-quality.js';
import { rng } from './support.js';

const SIZES = [1_000, 5_000, 10_000, 30_000];
const RUNS = 5;

const SUBJECTS = ['the team', 'Maria', 'John', 'marketing', 'support', 'finance', 'the vendor', 'we', 'the client', 'engineering'];
const VERBS = [
  'reviewed',
  'discussed',
  'will send',
  'needs to prepare',
  'decided to launch',
  'agreed on',
  'reported',
  'asked about',
  'will check',
  'approved',
];
const OBJECTS = [
  'the launch budget',
  'the mobile app release',
  'the support tickets',
  'the Portuguese translation',
  'the quarterly numbers',
  'the hiring plan',
  'the contract renewal',
  'the beta results',
  'the store page',
  'the onboarding flow',
  'the security review',
  'the price change',
];
const TAILS = ['by Friday', 'in March', 'for Spain and Portugal', 'after the last release', 'next week', 'with the partners', '', '', ''];
const FILLERS = ['um, ', 'so ', 'well, ', '', '', '', ''];

function transcript(words: number, seed = 7): string[] {
  const r = rng(seed);
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)]!;
  const out: string[] = [];
  let n = 0;
  while (n < words) {
    const s = `${pick(FILLERS)}${pick(SUBJECTS)} ${pick(VERBS)} ${pick(OBJECTS)} ${pick(TAILS)}`.trim().replace(/\s+/g, ' ');
    const q = r() < 0.05 ? '?' : '.';
    out.push(s.charAt(0).toUpperCase() + s.slice(1) + q);
    n += s.split(' ').length;
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(`load average before: ${load()}`);
  await qualitySection(process.argv.includes('--show'));
  console.log(`load average after the quality section: ${load()}`);
  if (process.argv.includes('--quality')) return;
  const engine = new ExtractiveSummarizer();
  const t = BUILTIN_TEMPLATES.find((x) => x.slug === 'meeting-minutes')!;
  const template = { slug: t.slug, systemPrompt: t.system_prompt, templatePrompt: t.template_prompt, outputFormat: t.output_format };
  console.log('\nbuilt-in extractive summarizer (engine only, meeting-minutes template), median of', RUNS, 'runs');
  console.log('words     sentences   ms      ms per 1,000 words');
  // One untimed run first, so the first size does not pay for the JIT warming up.
  await engine.summarize({ segments: transcript(2_000, 3), language: 'en', template, plainText: false });
  for (const size of SIZES) {
    const segments = transcript(size);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      await engine.summarize({ segments, language: 'en', template, plainText: false });
      times.push(performance.now() - t0);
    }
    const ms = median(times);
    console.log(
      `${String(size).padEnd(10)}${String(segments.length).padEnd(12)}${ms.toFixed(1).padEnd(8)}${((ms / size) * 1000).toFixed(1)}`,
    );
  }

  const app = await startSummaryApp(process.env.DATABASE_URL ? 'postgres' : 'sqlite');
  try {
    const f = await funded(app, 1_000_000);
    console.log(
      `\nGET /api/v1/sse/regenerate/summary over HTTP to done (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}), median of ${RUNS}`,
    );
    console.log('words     ms to done   ms per 1,000 words');
    for (const size of [1_000, 10_000]) {
      const task = await seed(app, f.principal, transcript(size, 11));
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        const events = await (
          await openStream(`${app.url}/api/v1/sse/regenerate/summary/${task.taskId}?mode=builtin&template=meeting-minutes`, { key: f.key })
        ).all();
        times.push(performance.now() - t0);
        if (events.at(-1)?.event !== 'done') throw new Error(`no done: ${JSON.stringify(events.at(-1))}`);
      }
      const ms = median(times);
      console.log(`${String(size).padEnd(10)}${ms.toFixed(1).padEnd(13)}${((ms / size) * 1000).toFixed(1)}`);
    }
  } finally {
    await app.close();
  }
  console.log(`\nload average after: ${load()} (2 shared cores; other work on the machine inflates these times)`);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
