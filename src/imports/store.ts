/**
 * Every read and write of import records. Status moves are conditional UPDATEs, so when two
 * processes race (a worker finishing, the start-timeout sweeper, a resumed job) exactly one
 * wins and its caller alone announces the outcome.
 */
import { type Kysely, sql } from 'kysely';
import { nowIso, parseJson } from '../store/columns.js';
import type { Database, Executor } from '../store/database.js';
import type { Schema } from '../store/schema.js';
import type { ImportOptions } from './options.js';
import type { ImportsTable } from './tables.js';

export type ImportStatus = 'pending' | 'processing' | 'completed' | 'failed';
export type ImportStage = 'converting' | 'transcribing' | 'translating' | 'summarizing';

export interface ImportRecord {
  importId: string;
  accountId: string;
  keyId: string;
  taskId: string;
  status: ImportStatus;
  stage: ImportStage | null;
  progress: number;
  message: string | null;
  originalFilename: string;
  fileSizeBytes: number;
  format: string;
  durationMs: number;
  sourceKey: string;
  options: ImportOptions;
  callbackUrl: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

function toRecord(r: ImportsTable): ImportRecord {
  return {
    importId: r.import_id,
    accountId: r.account_id,
    keyId: r.key_id,
    taskId: r.task_id,
    status: r.status as ImportStatus,
    stage: r.stage as ImportStage | null,
    progress: Number(r.progress),
    message: r.message,
    originalFilename: r.original_filename,
    fileSizeBytes: Number(r.file_size_bytes),
    format: r.format,
    durationMs: Number(r.duration_ms),
    sourceKey: r.source_key,
    options: parseJson<ImportOptions>(r.options, {} as ImportOptions),
    callbackUrl: r.callback_url,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  };
}

export type NewImport = Pick<
  ImportRecord,
  | 'importId'
  | 'accountId'
  | 'keyId'
  | 'taskId'
  | 'originalFilename'
  | 'fileSizeBytes'
  | 'format'
  | 'durationMs'
  | 'sourceKey'
  | 'options'
  | 'callbackUrl'
>;

export class ImportStore {
  constructor(
    private readonly database: Database,
    private readonly now: () => Date,
  ) {}

  private get db(): Kysely<Schema> {
    return this.database.db;
  }

  async insert(i: NewImport): Promise<ImportRecord> {
    const at = nowIso(this.now());
    const row: ImportsTable = {
      import_id: i.importId,
      account_id: i.accountId,
      key_id: i.keyId,
      task_id: i.taskId,
      status: 'pending',
      stage: null,
      progress: 0,
      message: null,
      original_filename: i.originalFilename,
      file_size_bytes: i.fileSizeBytes,
      format: i.format,
      duration_ms: i.durationMs,
      source_key: i.sourceKey,
      options: JSON.stringify(i.options),
      callback_url: i.callbackUrl,
      error_code: null,
      error_message: null,
      created_at: at,
      updated_at: at,
      started_at: null,
      finished_at: null,
    };
    await this.db.insertInto('imports').values(row).execute();
    return toRecord(row);
  }

  async get(importId: string): Promise<ImportRecord | null> {
    const r = await this.db.selectFrom('imports').selectAll().where('import_id', '=', importId).executeTakeFirst();
    return r ? toRecord(r) : null;
  }

  async getOwned(accountId: string, importId: string): Promise<ImportRecord | null> {
    const r = await this.db
      .selectFrom('imports')
      .selectAll()
      .where('import_id', '=', importId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return r ? toRecord(r) : null;
  }

  async byTask(taskId: string, within: Executor = this.db): Promise<ImportRecord | null> {
    const r = await within.selectFrom('imports').selectAll().where('task_id', '=', taskId).executeTakeFirst();
    return r ? toRecord(r) : null;
  }

  /** One page, newest first, and the account's total. */
  async list(
    accountId: string,
    page: number,
    perPage: number,
    status: ImportStatus | null,
  ): Promise<{ rows: ImportRecord[]; total: number }> {
    let q = this.db.selectFrom('imports').where('account_id', '=', accountId);
    if (status) q = q.where('status', '=', status);
    const [rows, count] = await Promise.all([
      q
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('import_id', 'desc')
        .limit(perPage)
        .offset((page - 1) * perPage)
        .execute(),
      q.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(toRecord), total: Number(count.n) };
  }

  /** pending -> processing (or still processing on a resumed attempt); false once final. */
  async start(importId: string): Promise<boolean> {
    const at = nowIso(this.now());
    const r = await this.db
      .updateTable('imports')
      .set((eb) => ({ status: 'processing', started_at: eb.fn.coalesce('started_at', eb.val(at)), updated_at: at }))
      .where('import_id', '=', importId)
      .where('status', 'in', ['pending', 'processing'])
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async setStage(importId: string, stage: ImportStage, progress: number, message: string | null): Promise<void> {
    await this.db
      .updateTable('imports')
      .set({ stage, progress: Math.max(0, Math.min(100, Math.round(progress))), message, updated_at: nowIso(this.now()) })
      .where('import_id', '=', importId)
      .where('status', '=', 'processing')
      .execute();
  }

  /** processing -> completed; true only for the caller that made the move. */
  async complete(importId: string, within: Executor = this.db): Promise<boolean> {
    const at = nowIso(this.now());
    const r = await within
      .updateTable('imports')
      .set({ status: 'completed', stage: null, progress: 100, message: 'Import completed.', finished_at: at, updated_at: at })
      .where('import_id', '=', importId)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** pending/processing -> failed (from `only` states when given); true only for the caller that made the move. */
  async fail(
    importId: string,
    code: string,
    message: string,
    only: ImportStatus[] = ['pending', 'processing'],
    within: Executor = this.db,
  ): Promise<boolean> {
    const at = nowIso(this.now());
    const r = await within
      .updateTable('imports')
      .set({ status: 'failed', stage: null, error_code: code, error_message: message, message, finished_at: at, updated_at: at })
      .where('import_id', '=', importId)
      .where('status', 'in', only)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Each pending import's place in the queue (1 = next to start), as the fair share orders it
   * (docs/imports.md "Fair share"): accounts take turns, an import being processed using its
   * account's turn, so an import that is its account's n-th (waiting or processing) comes
   * after every account's earlier turns, and among the n-th the older first. An estimate: the
   * database queue breaks ties within a turn by the account served longest ago, Redis by rank
   * at enqueue.
   */
  async queuePositions(importIds: string[]): Promise<Map<string, number>> {
    if (importIds.length === 0) return new Map();
    const r = await sql<{ import_id: string; position: number | string }>`
      with busy as (
        select account_id, count(*) as n from imports where status = 'processing' group by account_id),
      waiting as (
        select i.import_id, i.created_at,
          coalesce(busy.n, 0) + row_number() over (partition by i.account_id order by i.created_at, i.import_id) as turn
        from imports i left join busy on busy.account_id = i.account_id
        where i.status = 'pending')
      select me.import_id, 1 + (select count(*) from waiting w where w.turn < me.turn
          or (w.turn = me.turn and (w.created_at < me.created_at or (w.created_at = me.created_at and w.import_id < me.import_id))))
        as position
      from waiting me where me.import_id in (${sql.join(importIds)})`.execute(this.db);
    return new Map(r.rows.map((row) => [row.import_id, Number(row.position)]));
  }

  /** Pending imports created before `before` (no worker took them). */
  async pendingSince(before: Date, limit = 100): Promise<ImportRecord[]> {
    const rows = await this.db
      .selectFrom('imports')
      .selectAll()
      .where('status', '=', 'pending')
      .where('created_at', '<', nowIso(before))
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map(toRecord);
  }

  async delete(importId: string): Promise<void> {
    await this.db.deleteFrom('imports').where('import_id', '=', importId).execute();
  }
}
