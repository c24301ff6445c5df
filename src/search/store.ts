/**
 * Reads of the search index, and the one write not made by a trigger: a live final that is
 * not a stored sentence yet (live-index.ts). SQLite asks FTS5 and ranks by bm25; PostgreSQL
 * asks the GIN index over `tsv` and ranks by ts_rank. Both weight a match by where it is
 * (a title above a speaker name above text), then the most recently written entry first.
 */
import { type RawBuilder, sql } from 'kysely';
import { parseJson } from '../store/columns.js';
import type { Database } from '../store/database.js';
import type { TaskType } from '../tasks/status.js';
import { type SearchTerm, toFts5, toTsquery } from './query.js';
import type { SearchField } from './tables.js';

export interface SearchFilters {
  type?: TaskType;
  /** A BCP 47 tag; `en` also matches `en-US`. */
  language?: string;
  /** ISO 8601 bounds on the task's creation time: from inclusive, to exclusive. */
  createdFrom?: string;
  createdTo?: string;
  /** An original speaker id or a current display label. */
  speaker?: string;
}

export interface SearchRow {
  taskId: string;
  field: SearchField;
  sid: number | null;
  language: string | null;
  speakerId: string | null;
  startMs: number | null;
  endMs: number | null;
  body: string;
  title: string;
  type: TaskType;
  typeSource: string;
  createdAt: string;
  durationMs: number;
}

export interface LiveSentence {
  sid: number;
  text: string;
  language: string | null;
  speakerId: string | null;
  startMs: number;
  endMs: number;
}

// How much a match counts by where it is.
const WEIGHT = sql`(case e.kind when 'title' then 3.0 when 'speaker' then 2.0 when 'summary' then 1.2 else 1.0 end)`;

const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export class SearchStore {
  constructor(private readonly database: Database) {}

  async search(accountId: string, terms: readonly SearchTerm[], filters: SearchFilters, limit: number, offset: number) {
    const pg = this.database.dialect === 'postgres';
    const where = sql.join([sql`e.account_id = ${accountId}`, ...this.filterSql(filters, pg)], sql` and `);
    // Tasks are joined for ranking only when a filter needs them; otherwise only for the page.
    const taskFilter = filters.type || filters.createdFrom || filters.createdTo;
    const from = taskFilter ? sql`join tasks t on t.task_id = e.task_id` : sql``;
    let ranked: RawBuilder<unknown>;
    let count: RawBuilder<{ n: number | string }>;
    if (pg) {
      const q = sql`to_tsquery('simple', ${toTsquery(terms)})`;
      ranked = sql`select e.id, ts_rank(e.tsv, ${q}) * ${WEIGHT} as score from search_entries e ${from}
        where e.tsv @@ ${q} and ${where} order by score desc, e.id desc limit ${limit} offset ${offset}`;
      count = sql`select count(*) as n from search_entries e ${from} where e.tsv @@ ${q} and ${where}`;
    } else {
      const match = toFts5(terms);
      const fts = sql`search_fts join search_entries e on e.id = search_fts.rowid ${from}`;
      // bm25 is lower for better matches.
      ranked = sql`select e.id, -bm25(search_fts) * ${WEIGHT} as score from ${fts}
        where search_fts match ${match} and ${where} order by score desc, e.id desc limit ${limit} offset ${offset}`;
      count = sql`select count(*) as n from ${fts} where search_fts match ${match} and ${where}`;
    }
    const page = sql<Record<string, unknown>>`select e.task_id, e.kind, e.sid, e.language, e.speaker_id, e.start_ms, e.end_ms, e.body,
        t.title, t.type, t.type_source, t.created_at, t.duration_ms
      from (${ranked}) r join search_entries e on e.id = r.id join tasks t on t.task_id = e.task_id
      order by r.score desc, r.id desc`;
    const db = this.database.db;
    const rows = (await page.execute(db)).rows;
    const total = (await count.execute(db)).rows[0];
    return { rows: rows.map(toRow), total: Number(total?.n ?? 0) };
  }

  private filterSql(f: SearchFilters, pg: boolean): RawBuilder<unknown>[] {
    const out: RawBuilder<unknown>[] = [];
    if (f.type) out.push(sql`t.type = ${f.type}`);
    if (f.createdFrom) out.push(sql`t.created_at >= ${f.createdFrom}`);
    if (f.createdTo) out.push(sql`t.created_at < ${f.createdTo}`);
    if (f.language) {
      const tag = f.language.toLowerCase();
      out.push(sql`(lower(e.language) = ${tag} or lower(e.language) like ${`${tag}-%`})`);
    }
    if (f.speaker !== undefined) {
      const label = pg
        ? sql`exists (select 1 from transcripts tr where tr.task_id = e.task_id and (tr.speaker_labels::jsonb ->> e.speaker_id) = ${f.speaker})`
        : sql`exists (select 1 from transcripts tr, json_each(tr.speaker_labels) j
            where tr.task_id = e.task_id and j.key = e.speaker_id and j.value = ${f.speaker})`;
      out.push(sql`(e.speaker_id = ${f.speaker} or ${label})`);
    }
    return out;
  }

  /** Display labels (renamed speakers only) of the given tasks. */
  async speakerLabels(taskIds: readonly string[]): Promise<Map<string, Record<string, string>>> {
    if (taskIds.length === 0) return new Map();
    const rows = await this.database.db
      .selectFrom('transcripts')
      .select(['task_id', 'speaker_labels'])
      .where('task_id', 'in', [...taskIds])
      .execute();
    return new Map(rows.map((r) => [r.task_id, parseJson<Record<string, string>>(r.speaker_labels, {})]));
  }

  /** When a speaker first speaks in a task (ms), for a speaker-name hit's jump. */
  async firstSpoken(taskId: string, speakerId: string): Promise<{ startMs: number; endMs: number } | null> {
    const r = await this.database.db
      .selectFrom('sentences')
      .select(['start_ms', 'end_ms'])
      .where('task_id', '=', taskId)
      .where('speaker_id', '=', speakerId)
      .orderBy('start_ms')
      .limit(1)
      .executeTakeFirst();
    return r ? { startMs: Number(r.start_ms), endMs: Number(r.end_ms) } : null;
  }

  /**
   * A live final (empty text: withdrawn) or a live translation of one, searchable before the
   * session stores its sentences; the stored sentence replaces these entries (the triggers).
   */
  async indexLive(taskId: string, s: LiveSentence, translation?: { language: string }): Promise<void> {
    const kind: SearchField = translation ? 'translation' : 'transcript';
    await this.database.db.transaction().execute(async (trx) => {
      let drop = trx.deleteFrom('search_entries').where('task_id', '=', taskId).where('sid', '=', s.sid).where('kind', '=', kind);
      if (translation) drop = drop.where('language', '=', translation.language);
      await drop.execute();
      if (!s.text.trim()) return;
      await trx
        .insertInto('search_entries')
        .columns(['account_id', 'task_id', 'kind', 'sid', 'language', 'speaker_id', 'start_ms', 'end_ms', 'body'])
        .expression((eb) =>
          eb
            .selectFrom('tasks')
            .select((e) => [
              'account_id',
              'task_id',
              e.val(kind).as('kind'),
              e.val(s.sid).as('sid'),
              e.val(translation?.language ?? s.language).as('language'),
              e.val(s.speakerId).as('speaker_id'),
              e.val(Math.max(0, Math.round(s.startMs))).as('start_ms'),
              e.val(Math.max(0, Math.round(s.endMs))).as('end_ms'),
              e.val(s.text).as('body'),
            ])
            .where('task_id', '=', taskId),
        )
        .execute();
    });
  }
}

function toRow(r: Record<string, unknown>): SearchRow {
  return {
    taskId: String(r.task_id),
    field: r.kind as SearchField,
    sid: n(r.sid),
    language: (r.language as string | null) ?? null,
    speakerId: (r.speaker_id as string | null) ?? null,
    startMs: n(r.start_ms),
    endMs: n(r.end_ms),
    body: String(r.body),
    title: String(r.title),
    type: r.type as TaskType,
    typeSource: String(r.type_source),
    createdAt: String(r.created_at),
    durationMs: Number(r.duration_ms),
  };
}
