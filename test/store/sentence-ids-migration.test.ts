/**
 * Migration 0120: transcripts stored while sentence ids started at 0 are renumbered from 1,
 * on both databases, keeping each sentence's text, translations and speaker with it;
 * transcripts already numbered from 1 are left alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../../src/schema.js';
import { type Database, openDatabase } from '../../src/store/database.js';
import { backends, createPgSchema, dropPgSchema } from '../support/app.js';

describe.each(backends())('sentence ids from 1 (migration) on %s', (backend) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function database(): Promise<Database> {
    if (backend === 'postgres') {
      const schema = await createPgSchema();
      const db = openDatabase({ databaseUrl: process.env.DATABASE_URL, sqlitePath: '', pgSchema: schema });
      cleanups.push(async () => {
        await db.close();
        await dropPgSchema(schema);
      });
      return db;
    }
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const db = openDatabase({ sqlitePath: join(mkdtempSync(join(tmpdir(), 'parley-sid-')), 'db.sqlite') });
    cleanups.push(() => db.close());
    return db;
  }

  it('shifts 0-based transcripts by one and leaves 1-based ones', async () => {
    const database_ = await database();
    const before = MIGRATIONS.filter((m) => m.id < '0120_sentence_ids_from_one');
    await migrate(database_, before);
    // biome-ignore lint/suspicious/noExplicitAny: the schema as it was before the migration
    const db = database_.db as any;
    const now = new Date().toISOString();
    const task = (id: string) => ({
      task_id: id,
      account_id: 'a1',
      key_id: 'k1',
      title: id,
      name_source: 'auto',
      type: 'transcribe',
      type_source: 'import',
      recognition_mode: 'single',
      processing_status: 'completed',
      created_at: now,
      updated_at: now,
    });
    const old = '00000000-0000-4000-8000-000000000001';
    const fresh = '00000000-0000-4000-8000-000000000002';
    await db
      .insertInto('tasks')
      .values([task(old), task(fresh)])
      .execute();
    const sentence = (taskId: string, sid: number, origin: string) => ({
      task_id: taskId,
      sid,
      origin,
      start_ms: sid * 1000,
      end_ms: sid * 1000 + 900,
      speaker_id: `spk_${sid}`,
      translations: JSON.stringify({ es: `es ${origin}` }),
    });
    await db
      .insertInto('sentences')
      .values([
        sentence(old, 0, 'zero'),
        sentence(old, 1, 'one'),
        sentence(old, 2, 'two'),
        sentence(fresh, 1, 'first'),
        sentence(fresh, 2, 'second'),
      ])
      .execute();

    const applied = await migrate(database_);
    expect(applied).toContain('0120_sentence_ids_from_one');

    const rows = async (taskId: string) =>
      (
        await db
          .selectFrom('sentences')
          .select(['sid', 'origin', 'speaker_id', 'translations', 'start_ms'])
          .where('task_id', '=', taskId)
          .orderBy('sid')
          .execute()
      ).map((r: { sid: number; origin: string; speaker_id: string; translations: unknown; start_ms: number }) => [
        Number(r.sid),
        r.origin,
        r.speaker_id,
        typeof r.translations === 'string' ? JSON.parse(r.translations).es : (r.translations as { es: string }).es,
        Number(r.start_ms),
      ]);
    expect(await rows(old)).toEqual([
      [1, 'zero', 'spk_0', 'es zero', 0],
      [2, 'one', 'spk_1', 'es one', 1000],
      [3, 'two', 'spk_2', 'es two', 2000],
    ]);
    expect(await rows(fresh)).toEqual([
      [1, 'first', 'spk_1', 'es first', 1000],
      [2, 'second', 'spk_2', 'es second', 2000],
    ]);
    // Applied once: a second start changes nothing.
    expect(await migrate(database_)).toEqual([]);
    expect((await rows(old))[0]![0]).toBe(1);
  });
});
