/**
 * Sentence ids are numbered from 1 (issue 18): the TTS stream's defaults (`sid` 1, `length` 1)
 * name the first sentence, and every other surface (results, history, exports, speaker edits,
 * retranslation) uses the same numbers. Transcripts stored while ids started at 0 are shifted
 * by one: every task that has a sentence 0 gets sid + 1 on all its sentences.
 *
 * Two statements instead of `sid = sid + 1`: the primary key (task_id, sid) is checked row by
 * row on both databases, so shifting in place could collide with the next row. Moving the
 * affected rows to negative ids first (-(sid + 1), never a stored id) and then flipping the
 * sign keeps every intermediate state unique. Speaker labels, summaries and translations are
 * keyed by speaker or language, not by sid, so nothing else refers to the old numbers.
 */
import { sql } from 'kysely';
import type { Migration } from '../../store/migration.js';

export const sentenceIdsFromOneMigration: Migration = {
  id: '0120_sentence_ids_from_one',
  async up(db) {
    await sql`update sentences set sid = -(sid + 1)
      where task_id in (select task_id from sentences where sid = 0)`.execute(db);
    await sql`update sentences set sid = -sid where sid < 0`.execute(db);
  },
};
