/**
 * Storage of feed tokens and shares. Secrets are kept as SHA-256 hashes (48 random
 * characters carry about 285 bits, so a plain hash is enough) and looked up by that hash
 * through the primary key, so the response time says nothing about a guessed value.
 * Every use of a token slides its expiry in the same statement that checks it.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Database } from '../store/database.js';

export type FeedTokenKind = 'owner' | 'audience';

export interface FeedTokenGrant {
  taskId: string;
  kind: FeedTokenKind;
  expiresAt: string;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export class SubtitleStore {
  constructor(private readonly database: Database) {}

  async issueToken(token: string, input: { taskId: string; kind: FeedTokenKind; shareId: string | null; expiresAt: Date; now: Date }) {
    await this.database.db
      .insertInto('subtitle_tokens')
      .values({
        token_hash: hashSecret(token),
        task_id: input.taskId,
        kind: input.kind,
        share_id: input.shareId,
        expires_at: input.expiresAt.toISOString(),
        created_at: input.now.toISOString(),
      })
      .execute();
  }

  /**
   * The token's grant when it is unexpired at `now`, with its expiry moved to `slideTo`
   * (sliding expiry); null otherwise. An audience token also needs its share to be the
   * recording's current, unexpired one (revoking or re-enabling the share cuts its audience off).
   */
  async useToken(token: string, now: Date, slideTo: Date): Promise<FeedTokenGrant | null> {
    const { db } = this.database;
    const row = await db
      .updateTable('subtitle_tokens')
      .set({ expires_at: slideTo.toISOString() })
      .where('token_hash', '=', hashSecret(token))
      .where('expires_at', '>', now.toISOString())
      .returning(['task_id', 'kind', 'share_id', 'expires_at'])
      .executeTakeFirst();
    if (!row) return null;
    if (row.kind === 'audience') {
      const share = await db
        .selectFrom('subtitle_shares')
        .select('share_id')
        .where('task_id', '=', row.task_id)
        .where('share_id', '=', row.share_id ?? '')
        .where('expires_at', '>', now.toISOString())
        .executeTakeFirst();
      if (!share) return null;
    }
    return { taskId: row.task_id, kind: row.kind as FeedTokenKind, expiresAt: row.expires_at };
  }

  /** Enables (or re-enables) the recording's share: a new share id and secret replace the old ones. */
  async enableShare(taskId: string, secret: string, expiresAt: Date, now: Date): Promise<string> {
    const shareId = randomUUID();
    const row = { share_id: shareId, secret_hash: hashSecret(secret), expires_at: expiresAt.toISOString(), created_at: now.toISOString() };
    await this.database.db
      .insertInto('subtitle_shares')
      .values({ task_id: taskId, ...row })
      .onConflict((oc) => oc.column('task_id').doUpdateSet(row))
      .execute();
    return shareId;
  }

  /** Deletes the share and the audience tokens it gave out; true when a share existed. */
  async revokeShare(taskId: string): Promise<boolean> {
    return this.database.db.transaction().execute(async (trx) => {
      const gone = await trx.deleteFrom('subtitle_shares').where('task_id', '=', taskId).executeTakeFirst();
      await trx.deleteFrom('subtitle_tokens').where('task_id', '=', taskId).where('kind', '=', 'audience').execute();
      return Number(gone.numDeletedRows) > 0;
    });
  }

  /** The share id when `secret` is the recording's current, unexpired share secret. */
  async matchShare(taskId: string, secret: string, now: Date): Promise<string | null> {
    const row = await this.database.db
      .selectFrom('subtitle_shares')
      .select('share_id')
      .where('task_id', '=', taskId)
      .where('secret_hash', '=', hashSecret(secret))
      .where('expires_at', '>', now.toISOString())
      .executeTakeFirst();
    return row?.share_id ?? null;
  }

  /** Forgets expired tokens and shares (called now and then). */
  async sweep(now: Date): Promise<void> {
    const nowIso = now.toISOString();
    await this.database.db.deleteFrom('subtitle_tokens').where('expires_at', '<=', nowIso).execute();
    await this.database.db.deleteFrom('subtitle_shares').where('expires_at', '<=', nowIso).execute();
  }
}
