/**
 * The catch-up keeper on its own (src/broadcasts/catch-up/keeper.ts) with real parts: a real
 * SQLite database with the migrations, the extractive summarizer and Apertium (en -> es), no
 * recognizer (sentences handed in as the host session does). What the 20-minute suite cannot
 * show quickly: the interval waits for enough new text; past the input limit a run reads the
 * previous summary and the newest sentences (rolling) and the span still starts at the first
 * sentence; a keeper that no longer holds the broadcast writes nothing; a second keeper (a host
 * that returned, maybe on another node) continues from the stored summary; a write that lost the
 * revision race leaves the newer summary in place.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatchUpKeeper, type CatchUpSettings, type KeeperScope } from '../../src/broadcasts/catch-up/keeper.js';
import { CatchUpStore } from '../../src/broadcasts/catch-up/store.js';
import { summarySegments } from '../../src/broadcasts/catch-up/text.js';
import { loadConfig } from '../../src/config.js';
import { apertiumFactory } from '../../src/engines/builtin/apertium.js';
import { ExtractiveSummarizer } from '../../src/engines/builtin/extractive-summarizer.js';
import type { Summarizer, Translator } from '../../src/engines/types.js';
import { createLogger } from '../../src/platform/logging.js';
import { migrate } from '../../src/schema.js';
import { type Database, openDatabase } from '../../src/store/database.js';
import { BUDGET_MEETING, MEETING } from '../support/meetings.js';

let database: Database;
let store: CatchUpStore;
let apertium: Translator;
const summarizer = new ExtractiveSummarizer();
/** The summarizer, counting what each run read. */
const inputs: string[][] = [];
const counting: Summarizer = {
  ...summarizer,
  id: summarizer.id,
  kind: 'summarizer',
  tier: 'builtin',
  capabilities: summarizer.capabilities,
  summarize: (o) => {
    inputs.push(o.segments);
    return summarizer.summarize(o);
  },
};

beforeAll(async () => {
  database = openDatabase({ sqlitePath: join(mkdtempSync(join(tmpdir(), 'parley-catchup-')), 'db.sqlite') });
  await migrate(database);
  store = new CatchUpStore(database);
  const made = await apertiumFactory.create({ config: loadConfig({}), modelsDir: '/nowhere', logger: createLogger('silent') } as never);
  if ('unavailable' in made) throw new Error(`Apertium unavailable: ${made.unavailable}`);
  apertium = (Array.isArray(made) ? made[0] : made) as Translator;
});
afterAll(() => database?.close());

function keeper(broadcastId: string, settings: Partial<CatchUpSettings> = {}, holds: () => boolean = () => true) {
  const scope: KeeperScope = { broadcastId, source: 'en', targets: ['es'], enabled: async () => true, holds };
  return new CatchUpKeeper(
    {
      store,
      summarizer: () => counting,
      translate: (text, from, to) => apertium.translate(text, { from, to }),
      // The interval is not waited for here: refresh() runs at once, as a pause does.
      settings: { intervalMs: 3_600_000, minNewChars: 200, maxInputChars: 20_000, ...settings },
      now: () => new Date(),
      logger: createLogger('silent'),
    },
    scope,
  );
}

/** Hands `lines` to the keeper as final sentences 5 s apart from `fromMs`. */
function say(k: CatchUpKeeper, lines: string[], fromMs: number): void {
  for (const [i, l] of lines.entries()) k.add(fromMs + i * 5000, l);
}

describe('catch-up keeper', () => {
  it('writes the summary and its translation with the span it covers; nothing new, nothing written', async () => {
    const k = keeper('b-1');
    await k.start();
    say(k, MEETING, 0);
    await k.refresh();
    const first = (await store.get('b-1'))!;
    expect(first).toMatchObject({ revision: 1, sourceLanguage: 'en', coversFromMs: 0, coversToMs: (MEETING.length - 1) * 5000 });
    expect(first.engine).toBe('builtin/extractive-summarizer');
    expect(Object.keys(first.texts).sort()).toEqual(['en', 'es']);
    // Plain lines ("- " items), no heading; the Spanish is Apertium's, line for line.
    expect(first.texts.en).not.toMatch(/^#/m);
    expect(first.texts.en!.split('\n').every((l) => l.startsWith('- '))).toBe(true);
    expect(first.texts.es!.split('\n')).toHaveLength(first.texts.en!.split('\n').length);
    expect(first.texts.es).not.toBe(first.texts.en);
    await k.refresh();
    expect((await store.get('b-1'))!.revision).toBe(1);
    k.stop();
  });

  it('past the input limit a run reads the previous summary and the newest sentences; the span still starts at the first', async () => {
    inputs.length = 0;
    const k = keeper('b-2', { maxInputChars: 1000 });
    await k.start();
    say(k, MEETING, 0);
    await k.refresh();
    const before = (await store.get('b-2'))!;
    say(k, [...BUDGET_MEETING, ...BUDGET_MEETING.map((l) => `Later, ${l.toLowerCase()}`)], 600_000);
    await k.refresh();
    const after = (await store.get('b-2'))!;
    expect(after.revision).toBe(2);
    expect(after.coversFromMs).toBe(0);
    expect(after.coversToMs).toBe(600_000 + (2 * BUDGET_MEETING.length - 1) * 5000);
    // The second run read the first summary's lines, then only the newest sentences, within the limit.
    const second = inputs[1]!;
    const earlier = summarySegments(before.texts.en!);
    expect(second.slice(0, earlier.length)).toEqual(earlier);
    expect(second.join('\n').length).toBeLessThanOrEqual(1000);
    const newest = second.slice(earlier.length);
    const batch = [...BUDGET_MEETING, ...BUDGET_MEETING.map((l) => `Later, ${l.toLowerCase()}`)];
    expect(newest.length).toBeGreaterThan(0);
    expect(newest.length).toBeLessThan(batch.length);
    expect(newest).toEqual(batch.slice(-newest.length));
    k.stop();
  });

  it('the interval waits for enough new text', async () => {
    const k = keeper('b-3', { intervalMs: 200, minNewChars: 400 });
    await k.start();
    say(k, MEETING.slice(0, 2), 0);
    await new Promise((r) => setTimeout(r, 700));
    expect(await store.get('b-3')).toBeNull();
    say(k, MEETING.slice(2), 10_000);
    for (let i = 0; i < 50 && !(await store.get('b-3')); i++) await new Promise((r) => setTimeout(r, 200));
    expect((await store.get('b-3'))!.coversToMs).toBe(10_000 + (MEETING.length - 3) * 5000);
    k.stop();
  });

  it('a keeper that lost the broadcast writes nothing; the next host continues from the stored summary; a stale write loses', async () => {
    let held = true;
    const old = keeper('b-4', {}, () => held);
    await old.start();
    say(old, MEETING, 0);
    await old.refresh();
    expect((await store.get('b-4'))!.revision).toBe(1);
    // The host returns elsewhere: its keeper starts from revision 1 and summarizes on top of it.
    held = false;
    inputs.length = 0;
    const next = keeper('b-4');
    await next.start();
    say(next, BUDGET_MEETING, 300_000);
    await next.refresh();
    const written = (await store.get('b-4'))!;
    expect(written).toMatchObject({ revision: 2, coversFromMs: 0, coversToMs: 300_000 + (BUDGET_MEETING.length - 1) * 5000 });
    expect(inputs[0]!.slice(-BUDGET_MEETING.length)).toEqual(BUDGET_MEETING);
    // The old session (lease lost) says more: nothing is written.
    say(old, ['One more sentence the old host heard after it lost the broadcast, about the mobile app.'], 400_000);
    await old.refresh();
    expect((await store.get('b-4'))!.revision).toBe(2);
    // Had it still believed it held the broadcast, its write would name revision 1 and lose.
    held = true;
    say(old, ['And yet another sentence about the budget of the launch in March.'], 410_000);
    await old.refresh();
    const now = (await store.get('b-4'))!;
    expect(now.coversToMs).toBe(written.coversToMs);
    old.stop();
    next.stop();
  });
});
