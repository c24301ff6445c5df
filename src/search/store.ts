/**
 * Reads of the search index, and the one write not made by a trigger: a live final that is
 * not a stored sentence yet (live-index.ts). SQLite asks FTS5 and ranks by bm25; PostgreSQL
 * asks the GIN index over `tsv` and ranks by ts_rank. Both weight a match by where it is
 * (a title above a speaker name above text), then the most recently written entry first.
 *
 * Only a bounded set of matches is ranked: the newest RANKED_MATCHES entries that match (and
 * pass the filters), taken in index order without scoring the rest. A word in tens of
 * thousands of sentences would otherwise cost a score and a sort for every one of them, and
 * a count over them all, on each page; a query with fewer matches is ranked exactly as if
 * every match were scored. Snippets are made for the returned page only (service.ts).
 */
import { type RawBuilder, sql } from 'kysely';
import { parseJson } from '../store/columns.js';
import type { Database } from '../store/database.js';
import type { TaskType } from '../tasks/status.js';
import { type SearchTerm, toFts5, toTsquery } from './query.js';
import type { SearchField } from './tables.js';

/** The most matches ranked for one query (the newest ones); `total` stops there. */
export const RANKED_MATCHES = 1000;

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

export interface SearchPage {
  rows: SearchRow[];
  /** Matches ranked: all of them, or RANKED_MATCHES when `capped`. */
  total: number;
  /** More entries match than were ranked (the oldest are left out). */
  capped: boolean;
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
const weight = (kind: RawBuilder<unknown>) =>
  sql`(case ${kind} when 'title' then 3.0 when 'speaker' then 2.0 when 'summary' then 1.2 else 1.0 end)`;

const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));

interface Candidate {
  id: number;
  score: number;
}

export class SearchStore {
  constructor(private readonly database: Database) {}

  async search(
    accountId: string,
    terms: readonly SearchTerm[],
    filters: SearchFilters,
    limit: number,
    offset: number,
  ): Promise<SearchPage> {
    const found = await this.candidates(accountId, terms, filters);
    // Candidates come newest first: the one past the bound only says that more match.
    const capped = found.length > RANKED_MATCHES;
    const ranked = found.slice(0, RANKED_MATCHES).sort((a, b) => b.score - a.score || b.id - a.id);
    const ids = ranked.slice(offset, offset + limit).map((c) => c.id);
    return { rows: await this.entries(ids), total: ranked.length, capped };
  }

  /**
   * The newest RANKED_MATCHES + 1 matching entries (id and weighted score), in index order:
   * FTS5 walks its doclist backwards and scores only the rows it returns; PostgreSQL takes the
   * newest ids first and scores those alone. Tasks are joined only when a filter needs them.
   */
  private async candidates(accountId: string, terms: readonly SearchTerm[], filters: SearchFilters): Promise<Candidate[]> {
    const pg = this.database.dialect === 'postgres';
    const where = sql.join([sql`e.account_id = ${accountId}`, ...this.filterSql(filters, pg)], sql` and `);
    const taskFilter = filters.type || filters.createdFrom || filters.createdTo;
    const bound = RANKED_MATCHES + 1;
    let query: RawBuilder<{ id: number | string; score: number | string }>;
    if (pg) {
      const q = sql`to_tsquery('simple', ${toTsquery(terms)})`;
      const from = taskFilter ? sql`join tasks t on t.task_id = e.task_id` : sql``;
      // ts_rank in the outer query: scored after the limit, for the candidates only.
      query = sql`select c.id, ts_rank(c.tsv, ${q}) * ${weight(sql`c.kind`)} as score from (
          select e.id, e.kind, e.tsv from search_entries e ${from}
          where e.tsv @@ ${q} and ${where} order by e.id desc limit ${bound}) c
        order by c.id desc`;
    } else {
      // CROSS JOIN keeps FTS5 the outer loop, so its rowid order stands and the limit stops
      // the walk (bm25, lower for better matches, is computed for the rows returned only).
      const from = taskFilter ? sql`cross join tasks t on t.task_id = e.task_id` : sql``;
      query = sql`select e.id, -bm25(search_fts) * ${weight(sql`e.kind`)} as score
        from search_fts cross join search_entries e on e.id = search_fts.rowid ${from}
        where search_fts match ${toFts5(terms)} and ${where}
        order by search_fts.rowid desc limit ${bound}`;
    }
    const rows = (await query.execute(this.database.db)).rows;
    return rows.map((r) => ({ id: Number(r.id), score: Number(r.score) }));
  }

  /** The entries with their tasks, in the order of `ids` (one gone since it was ranked is left out). */
  private async entries(ids: readonly number[]): Promise<SearchRow[]> {
    if (ids.length === 0) return [];
    const rows = (
      await sql<Record<string, unknown>>`select e.id, e.task_id, e.kind, e.sid, e.language, e.speaker_id, e.start_ms, e.end_ms, e.body,
          t.title, t.type, t.type_source, t.created_at, t.duration_ms
        from search_entries e join tasks t on t.task_id = e.task_id
        where e.id in (${sql.join(ids)})`.execute(this.database.db)
    ).rows;
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    return ids.flatMap((id) => {
      const r = byId.get(id);
      return r ? [toRow(r)] : [];
    });
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
