import type { Generated } from 'kysely';

export interface JobsTable {
  id: string;
  name: string;
  payload: string;
  /** pending | running | done | failed */
  status: string;
  attempts: Generated<number>;
  max_attempts: number;
  run_at: string;
  locked_until: string | null;
  locked_by: string | null;
  last_error: string | null;
  dedupe_key: string | null;
  /** Fairness group (an account): claims go to the group served least recently. */
  fair_key: Generated<string | null>;
  /** The order it was enqueued in (0052): breaks ties of run_at, so a group runs first in, first out. */
  enqueue_seq: Generated<number | string | null>;
  /** When the job was last claimed by a worker. */
  claimed_at: Generated<string | null>;
  created_at: string;
  updated_at: string;
}

export interface JobTables {
  jobs: JobsTable;
}
