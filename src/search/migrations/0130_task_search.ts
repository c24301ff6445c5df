/**
 * The search index of the task library (src/search): one `search_entries` row per searchable
 * text (a task's title, a sentence's transcript, each of its translations, the summary, each
 * speaker name), kept by triggers on `tasks`, `sentences` and `transcripts` in the same
 * transaction as every write, whatever code or process makes it (live finals, imports,
 * retranslation, summaries, speaker renames, corrections, deletion).
 *
 * Full text: SQLite's FTS5 over the entries (an external-content table, synchronised by
 * triggers on the entries); PostgreSQL's `tsvector` as a stored generated column with a GIN
 * index. Both tokenize with case folding and no stemming or accent folding (`unicode61
 * remove_diacritics 0` and the `simple` configuration), so the two backends find the same
 * words in every language.
 *
 * A sentence's entries replace those with the same (task, sid): an entry written for a live
 * final before the session ends (src/search/live-index.ts) gives way to the stored sentence.
 */
import { sql } from 'kysely';
import type { Dialect } from '../../store/dialect.js';
import type { Migration } from '../../store/migration.js';

const COLUMNS = 'account_id, task_id, kind, sid, language, speaker_id, start_ms, end_ms, body';

/** Inserts of a sentence's entries: `r` names the sentence row (`new` in a trigger), `from` adds its table for a backfill. */
function sentenceInserts(d: Dialect, r: string, from = ''): string {
  const firstLanguage = d === 'postgres' ? `(t.transcription_languages::jsonb ->> 0)` : `json_extract(t.transcription_languages, '$[0]')`;
  const translations =
    d === 'postgres' ? `jsonb_each_text(coalesce(${r}.translations, '{}')::jsonb) j` : `json_each(coalesce(${r}.translations, '{}')) j`;
  const isText = d === 'postgres' ? 'true' : `j.type = 'text'`;
  return `
    insert into search_entries (${COLUMNS})
      select t.account_id, ${r}.task_id, 'transcript', ${r}.sid, coalesce(${r}.language, ${firstLanguage}), ${r}.speaker_id,
             ${r}.start_ms, ${r}.end_ms, ${r}.origin
      from ${from} tasks t where t.task_id = ${r}.task_id and trim(${r}.origin) <> '';
    insert into search_entries (${COLUMNS})
      select t.account_id, ${r}.task_id, 'translation', ${r}.sid, j.key, ${r}.speaker_id, ${r}.start_ms, ${r}.end_ms, j.value
      from ${from} tasks t, ${translations} where t.task_id = ${r}.task_id and ${isText} and trim(j.value) <> '';`;
}

/** Inserts of a transcript's summary and speaker-name entries. */
function transcriptInserts(d: Dialect, r: string, from = ''): string {
  const labels = d === 'postgres' ? `jsonb_each_text(${r}.speaker_labels::jsonb) j` : `json_each(${r}.speaker_labels) j`;
  const isText = d === 'postgres' ? 'true' : `j.type = 'text'`;
  return `
    insert into search_entries (${COLUMNS})
      select t.account_id, ${r}.task_id, 'summary', null, ${r}.summary_language, null, null, null, ${r}.summary
      from ${from} tasks t where t.task_id = ${r}.task_id and ${r}.summary is not null and trim(${r}.summary) <> '';
    insert into search_entries (${COLUMNS})
      select t.account_id, ${r}.task_id, 'speaker', null, null, j.key, null, null, j.value
      from ${from} tasks t, ${labels} where t.task_id = ${r}.task_id and ${isText} and trim(j.value) <> '';`;
}

const titleInsert = (r: string, from = '') =>
  `insert into search_entries (${COLUMNS})
     select ${r}.account_id, ${r}.task_id, 'title', null, null, null, null, null, ${r}.title ${from};`;

const dropSentence = (r: string) => `delete from search_entries where task_id = ${r}.task_id and sid = ${r}.sid;`;
const dropTranscript = (r: string) => `delete from search_entries where task_id = ${r}.task_id and kind in ('summary', 'speaker');`;

async function run(db: Parameters<Migration['up']>[0], text: string): Promise<void> {
  await sql.raw(text).execute(db);
}

export const taskSearchMigration: Migration = {
  id: '0130_task_search',
  async up(db, dialect) {
    const id = dialect === 'postgres' ? 'bigint generated always as identity primary key' : 'integer primary key';
    const tsv = dialect === 'postgres' ? `, tsv tsvector generated always as (to_tsvector('simple'::regconfig, body)) stored` : '';
    await run(
      db,
      `create table search_entries (
        id ${id},
        account_id text not null,
        task_id text not null,
        kind text not null,
        sid integer,
        language text,
        speaker_id text,
        start_ms bigint,
        end_ms bigint,
        body text not null${tsv})`,
    );
    await run(db, 'create index search_entries_task on search_entries (task_id, sid)');
    await run(db, 'create index search_entries_account on search_entries (account_id)');

    if (dialect === 'postgres') {
      await run(db, 'create index search_entries_tsv on search_entries using gin (tsv)');
      const fn = async (name: string, body: string) =>
        run(db, `create function ${name}() returns trigger language plpgsql as $$ begin ${body} return null; end $$`);
      await fn(
        'search_sentence_sync',
        `if tg_op <> 'INSERT' then ${dropSentence('old')} end if;
         if tg_op = 'INSERT' then ${dropSentence('new')} end if;
         if tg_op <> 'DELETE' then ${sentenceInserts(dialect, 'new')} end if;`,
      );
      await fn(
        'search_transcript_sync',
        `if tg_op <> 'INSERT' then ${dropTranscript('old')} end if;
         if tg_op <> 'DELETE' then ${transcriptInserts(dialect, 'new')} end if;`,
      );
      await fn(
        'search_task_sync',
        `if tg_op = 'INSERT' then ${titleInsert('new')}
         elsif tg_op = 'DELETE' then delete from search_entries where task_id = old.task_id;
         elsif new.title is distinct from old.title then
           update search_entries set body = new.title where task_id = new.task_id and kind = 'title';
         end if;`,
      );
      await run(
        db,
        `create trigger sentences_search after insert or delete or update of origin, translations, speaker_id, language, start_ms, end_ms
          on sentences for each row execute function search_sentence_sync()`,
      );
      await run(
        db,
        `create trigger transcripts_search after insert or delete or update of summary, summary_language, speaker_labels
          on transcripts for each row execute function search_transcript_sync()`,
      );
      await run(
        db,
        `create trigger tasks_search after insert or delete or update of title on tasks for each row execute function search_task_sync()`,
      );
    } else {
      await run(
        db,
        `create virtual table search_fts using fts5(body, content='search_entries', content_rowid='id', tokenize='unicode61 remove_diacritics 0')`,
      );
      const ftsDelete = `insert into search_fts (search_fts, rowid, body) values ('delete', old.id, old.body);`;
      await run(
        db,
        `create trigger search_entries_insert after insert on search_entries begin insert into search_fts (rowid, body) values (new.id, new.body); end`,
      );
      await run(db, `create trigger search_entries_delete after delete on search_entries begin ${ftsDelete} end`);
      await run(
        db,
        `create trigger search_entries_update after update of body on search_entries begin
          ${ftsDelete} insert into search_fts (rowid, body) values (new.id, new.body); end`,
      );
      await run(
        db,
        `create trigger sentences_search_insert after insert on sentences begin ${dropSentence('new')} ${sentenceInserts(dialect, 'new')} end`,
      );
      await run(
        db,
        `create trigger sentences_search_update after update of origin, translations, speaker_id, language, start_ms, end_ms on sentences begin
          ${dropSentence('old')} ${sentenceInserts(dialect, 'new')} end`,
      );
      await run(db, `create trigger sentences_search_delete after delete on sentences begin ${dropSentence('old')} end`);
      await run(db, `create trigger transcripts_search_insert after insert on transcripts begin ${transcriptInserts(dialect, 'new')} end`);
      await run(
        db,
        `create trigger transcripts_search_update after update of summary, summary_language, speaker_labels on transcripts begin
          ${dropTranscript('old')} ${transcriptInserts(dialect, 'new')} end`,
      );
      await run(db, `create trigger transcripts_search_delete after delete on transcripts begin ${dropTranscript('old')} end`);
      await run(db, `create trigger tasks_search_insert after insert on tasks begin ${titleInsert('new')} end`);
      await run(
        db,
        `create trigger tasks_search_title after update of title on tasks when new.title is not old.title begin
          update search_entries set body = new.title where task_id = new.task_id and kind = 'title'; end`,
      );
      await run(
        db,
        `create trigger tasks_search_delete after delete on tasks begin delete from search_entries where task_id = old.task_id; end`,
      );
    }

    // Records that exist already.
    await run(db, titleInsert('k', 'from tasks k'));
    // One statement per call: better-sqlite3 prepares a single statement.
    const statements = [sentenceInserts(dialect, 's', 'sentences s,'), transcriptInserts(dialect, 'r', 'transcripts r,')].flatMap((s) =>
      s.split(';'),
    );
    for (const s of statements) if (s.trim()) await run(db, s);
  },
};
