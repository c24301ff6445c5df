/**
 * The live_recordings rows (tables.ts). Every change of holder is one conditional UPDATE, so
 * two processes never both continue or finish the same recording: the row says who holds it
 * (`instance_id` with a lease), and a process only acts on a row its UPDATE changed.
 */
import { createHash } from 'node:crypto';
import type { Database } from '../../store/database.js';
import type { LiveRecordingsTable } from './tables.js';

export type LiveRow = LiveRecordingsTable;
/** Why a recording can no longer be resumed (the resume answer: ended -> resume_unavailable, grace_expired -> resume_grace_expired). */
export type EndState = 'ended' | 'grace_expired';

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Rows of ended recordings are kept this long (a late resume is told why), then pruned. */
const ENDED_KEEP_MS = 60 * 60 * 1000;

export class LiveRecordingStore {
  constructor(
    private readonly database: Database,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private get db() {
    return this.database.db;
  }

  private iso(offsetMs = 0): string {
    return new Date(this.now().getTime() + offsetMs).toISOString();
  }

  async insert(row: Omit<LiveRow, 'updated_at' | 'segments' | 'bytes' | 'grace_until'>): Promise<void> {
    await this.db
      .insertInto('live_recordings')
      .values({ ...row, segments: 0, bytes: 0, grace_until: null, updated_at: this.iso() })
      .execute();
    // Old rows go with new ones (one statement, no sweep of its own).
    await this.db
      .deleteFrom('live_recordings')
      .where('state', 'in', ['ended', 'grace_expired'])
      .where('updated_at', '<', this.iso(-ENDED_KEEP_MS))
      .execute();
  }

  async get(taskId: string): Promise<LiveRow | undefined> {
    return this.db.selectFrom('live_recordings').selectAll().where('task_id', '=', taskId).executeTakeFirst();
  }

  async byToken(token: string): Promise<LiveRow | undefined> {
    return this.db.selectFrom('live_recordings').selectAll().where('token_hash', '=', tokenHash(token)).executeTakeFirst();
  }

  /** A segment was stored: the row's audio count and snapshot move on. False: this process no longer holds the row. */
  async saveSegment(taskId: string, instanceId: string, segments: number, bytes: number, snapshot: string): Promise<boolean> {
    const r = await this.db
      .updateTable('live_recordings')
      .set({ segments, bytes, snapshot, updated_at: this.iso() })
      .where('task_id', '=', taskId)
      .where('instance_id', '=', instanceId)
      .where('state', 'in', ['live', 'recovering'])
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** The holder's heartbeat: every live row of `instanceId` keeps its lease. */
  async renew(instanceId: string, leaseMs: number): Promise<void> {
    await this.db
      .updateTable('live_recordings')
      .set({ lease_until: this.iso(leaseMs) })
      .where('instance_id', '=', instanceId)
      .where('state', 'in', ['live', 'recovering'])
      .execute();
  }

  /** The holder lets go of a recording that another process may take over until `graceMs` from now. */
  async park(taskId: string, instanceId: string, graceMs: number): Promise<boolean> {
    const r = await this.db
      .updateTable('live_recordings')
      .set({ state: 'parked', instance_id: null, grace_until: this.iso(graceMs), lease_until: this.iso(), updated_at: this.iso() })
      .where('task_id', '=', taskId)
      .where('instance_id', '=', instanceId)
      .where('state', '=', 'live')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** A resume takes the recording: a parked one within its grace, or one whose holder died (lease lapsed). */
  async claimForResume(taskId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    const now = this.iso();
    const r = await this.db
      .updateTable('live_recordings')
      .set({ state: 'live', instance_id: instanceId, lease_until: this.iso(leaseMs), grace_until: null, updated_at: now })
      .where('task_id', '=', taskId)
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'parked'), eb('grace_until', '>=', now)]),
          eb.and([eb('state', '=', 'live'), eb('lease_until', '<', now)]),
        ]),
      )
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Recordings nobody will resume any more: parked past their grace, held by a process that
   * died more than `graceMs` ago (its client had the grace to resume elsewhere), or being
   * recovered by a process that died too.
   */
  async orphans(graceMs: number): Promise<string[]> {
    const now = this.iso();
    const rows = await this.db
      .selectFrom('live_recordings')
      .select('task_id')
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'parked'), eb('grace_until', '<', now)]),
          eb.and([eb('state', 'in', ['live', 'recovering']), eb('lease_until', '<', this.iso(-graceMs))]),
        ]),
      )
      .execute();
    return rows.map((r) => r.task_id);
  }

  /** Takes an orphan (see orphans) for finalizing; false when another process took it first or its client came back. */
  async claimForRecovery(taskId: string, instanceId: string, graceMs: number, leaseMs: number): Promise<boolean> {
    const now = this.iso();
    const r = await this.db
      .updateTable('live_recordings')
      .set({ state: 'recovering', instance_id: instanceId, lease_until: this.iso(leaseMs), updated_at: now })
      .where('task_id', '=', taskId)
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'parked'), eb('grace_until', '<', now)]),
          eb.and([eb('state', 'in', ['live', 'recovering']), eb('lease_until', '<', this.iso(-graceMs))]),
        ]),
      )
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Takes a recording for the recovery of its local audio: from `holder`, a process known to be
   * gone (its folder says so, instance-dir.ts), whatever its lease says, or from any holder
   * whose lease lapsed. Parked and ended rows are not taken (a resume or a finish owns them).
   */
  async claimFromGoneHolder(taskId: string, holder: string, instanceId: string, leaseMs: number): Promise<boolean> {
    const now = this.iso();
    const r = await this.db
      .updateTable('live_recordings')
      .set({ state: 'recovering', instance_id: instanceId, lease_until: this.iso(leaseMs), updated_at: now })
      .where('task_id', '=', taskId)
      .where('state', 'in', ['live', 'recovering'])
      .where((eb) => eb.or([eb('instance_id', '=', holder), eb('lease_until', '<', now)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** The recording was finalized (or is being): a later resume is told why it cannot. */
  async end(taskId: string, state: EndState): Promise<void> {
    await this.db
      .updateTable('live_recordings')
      .set({ state, instance_id: null, updated_at: this.iso() })
      .where('task_id', '=', taskId)
      .execute();
  }
}
