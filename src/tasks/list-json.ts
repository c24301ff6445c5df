/**
 * The task list as one JSON text built by the database (SQLite json_group_array /
 * PostgreSQL json_agg). A large account's list (10,000 tasks) is then one row to read and
 * no objects to build or serialize in JavaScript, which is what keeps it within the list
 * latency target. The shape is the spec's Task (list item), the same as `taskListItem`
 * (format.ts); a test checks the two agree on both backends.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Database } from '../store/database.js';
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

export async function listTasksJson(
  database: Database,
  accountId: string,
  statuses: readonly TaskStatus[] | null,
  ids: readonly string[] | null,
): Promise<string> {
  if (ids && ids.length === 0) return '[]';
  const where = filters(accountId, statuses, ids);
  if (database.dialect === 'sqlite') {
    // The sorted subquery feeds the aggregate in order: SQLite never flattens a subquery with
    // ORDER BY into an aggregate query, it runs it as a co-routine. An ORDER BY inside the
    // aggregate would say the same but costs twice the time here; the list tests check order.
    const r = await sql<{ j: string }>`
      select json_group_array(json_object(
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
      from (select ${LIST_COLUMNS} from tasks where ${where} order by ${ORDER})`.execute(database.db);
    return r.rows[0]?.j ?? '[]';
  }
  // json_agg of the subquery's rows (faster than json_build_object per row), ordered by the
  // aggregate itself: a subquery's ORDER BY is not guaranteed to reach the aggregate.
  const r = await sql<{ j: string | null }>`
    select json_agg(x order by x.is_pinned desc, x.created_at desc, x.task_id desc)::text as j from (
      select task_id, title, type, type_source, duration_ms,
        case when duration_ms / 60000 < 10 then '0' else '' end || (duration_ms / 60000)::text || ':'
          || lpad(((duration_ms / 1000) % 60)::text, 2, '0') as duration_formatted,
        transcription_languages::json as transcription_languages,
        translation_languages::json as translation_languages,
        created_at, processing_status, is_pinned = 1 as is_pinned, is_unread = 1 as is_unread,
        summary_mode, summary_template, summary_language
      from tasks where ${where}
    ) x`.execute(database.db);
  return r.rows[0]?.j ?? '[]';
}
