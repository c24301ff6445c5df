/**
 * The task list as one JSON text built by the database (SQLite json_group_array /
 * PostgreSQL json_agg). A large account's list (10,000 tasks) is then one row to read and
 * no objects to build or serialize in JavaScript. The shape is the spec's Task (list item),
 * the same as `taskListItem` (format.ts); a test checks the two agree on both backends.
 *
 * Rendering 10,000 tasks still takes the database 40-60 ms on PostgreSQL, so the rendered
 * response is cached per account and status filter (list-cache.ts) with the account's list
 * version, read in the same statement as the list (one snapshot: the copy is exactly the list
 * at that version). A request then costs one primary-key read while nothing has changed.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Database } from '../store/database.js';
import { TaskListCache } from './list-cache.js';
import type { TaskStatus } from './status.js';

function filters(accountId: string, statuses: readonly TaskStatus[] | null, ids: readonly string[] | null): RawBuilder<unknown> {
  const parts = [sql`account_id = ${accountId}`];
  if (statuses) parts.push(sql`processing_status in (${sql.join(statuses.map((s) => sql`${s}`))})`);
  if (ids) parts.push(sql`task_id in (${sql.join(ids.map((i) => sql`${i}`))})`);
  return sql.join(parts, sql` and `);
}

const ORDER = sql`is_pinned desc, created_at desc, task_id desc`;

/** Only what the list shows: fewer columns read per row. */
const LIST_COLUMNS = sql.raw(
  'task_id, title, type, type_source, duration_ms, transcription_languages, translation_languages, created_at, processing_status, is_pinned, is_unread, summary_mode, summary_template, summary_language',
);

const VERSION = (accountId: string) => sql`(select version from task_list_versions where account_id = ${accountId})`;

interface RenderedList {
  /** The account's list version in the snapshot the list was read from (0: never written). */
  version: number;
  json: string;
}

async function renderList(
  database: Database,
  accountId: string,
  statuses: readonly TaskStatus[] | null,
  ids: readonly string[] | null,
): Promise<RenderedList> {
  const where = filters(accountId, statuses, ids);
  if (database.dialect === 'sqlite') {
    // The sorted subquery feeds the aggregate in order: SQLite never flattens a subquery with
    // ORDER BY into an aggregate query, it runs it as a co-routine. An ORDER BY inside the
    // aggregate would say the same but costs twice the time here; the list tests check order.
    const r = await sql<{ v: number | null; j: string }>`
      select ${VERSION(accountId)} as v, (select json_group_array(json_object(
        'task_id', task_id, 'title', title, 'type', type, 'type_source', type_source,
        'duration_ms', duration_ms,
        'duration_formatted', printf('%02d:%02d', duration_ms / 60000, (duration_ms / 1000) % 60),
        'transcription_languages', json(transcription_languages),
        'translation_languages', json(translation_languages),
        'created_at', created_at, 'processing_status', processing_status,
        'is_pinned', json(case when is_pinned = 1 then 'true' else 'false' end),
        'is_unread', json(case when is_unread = 1 then 'true' else 'false' end),
        'summary_mode', summary_mode, 'summary_template', summary_template, 'summary_language', summary_language
      )) as j
      from (select ${LIST_COLUMNS} from tasks where ${where} order by ${ORDER})) as j`.execute(database.db);
    return { version: Number(r.rows[0]?.v ?? 0), json: r.rows[0]?.j ?? '[]' };
  }
  // json_agg of the subquery's rows (faster than json_build_object per row), ordered by the
  // aggregate itself: a subquery's ORDER BY is not guaranteed to reach the aggregate.
  const r = await sql<{ v: number | null; j: string | null }>`
    select ${VERSION(accountId)} as v, (select json_agg(x order by x.is_pinned desc, x.created_at desc, x.task_id desc)::text from (
      select task_id, title, type, type_source, duration_ms,
        case when duration_ms / 60000 < 10 then '0' else '' end || (duration_ms / 60000)::text || ':'
          || lpad(((duration_ms / 1000) % 60)::text, 2, '0') as duration_formatted,
        transcription_languages::json as transcription_languages,
        translation_languages::json as translation_languages,
        created_at, processing_status, is_pinned = 1 as is_pinned, is_unread = 1 as is_unread,
        summary_mode, summary_template, summary_language
      from tasks where ${where}
    ) x) as j`.execute(database.db);
  return { version: Number(r.rows[0]?.v ?? 0), json: r.rows[0]?.j ?? '[]' };
}

/** The `GET /api/v1/tasks` response body: `{"data":{"tasks":[...]}}`, served from the cache when current. */
export class TaskListRenderer {
  constructor(
    private readonly database: Database,
    private readonly cache = new TaskListCache(),
  ) {}

  async body(accountId: string, statuses: readonly TaskStatus[] | null, ids: readonly string[] | null): Promise<Buffer> {
    if (ids && ids.length === 0) return wrap('[]');
    // Lists of chosen ids (at most 100) are small: rendered every time, never cached.
    const key = ids ? null : `${accountId}|${statuses ? statuses.join(',') : '*'}`;
    if (key !== null) {
      const row = await this.database.db
        .selectFrom('task_list_versions')
        .select('version')
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      const hit = this.cache.get(key, Number(row?.version ?? 0));
      if (hit) return hit;
    }
    const list = await renderList(this.database, accountId, statuses, ids);
    const body = wrap(list.json);
    if (key !== null) this.cache.set(key, list.version, body);
    return body;
  }
}

function wrap(json: string): Buffer {
  return Buffer.from(`{"data":{"tasks":${json}}}`);
}
