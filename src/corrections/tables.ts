/**
 * Revisions of corrected sentences (migration 0800). Revision 0 is the sentence as recognized
 * (stored when it is first corrected); each correction or undo adds the next revision.
 * `based_on` is the revision the change was made on: an undo restores that one's text and
 * translations, and the new revision takes its `based_on`, so repeated undos walk back.
 */
export interface SentenceRevisionsTable {
  task_id: string;
  sid: number;
  revision: number;
  /** recognized | correction | undo */
  kind: string;
  based_on: number | null;
  origin: string;
  /** JSON map language -> text, or null. */
  translations: string | null;
  /** JSON map language -> error code, or null. */
  translation_errors: string | null;
  created_at: string;
}

export interface CorrectionTables {
  sentence_revisions: SentenceRevisionsTable;
}
