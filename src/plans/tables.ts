/**
 * Plan assignment per account (its keys share it). No row means credit mode. Plan
 * definitions (features, limits) come from the catalogue in configuration (catalogue.ts);
 * the row names one.
 */
export interface AccountPlansTable {
  account_id: string;
  /** credit | unlimited (no restrictions) | unlimited-plan (named plan from the catalogue) */
  mode: string;
  plan_name: string | null;
  /** Null: never expires. */
  expires_at: string | null;
  /** When this authorization was granted; auth_total_limit_minutes counts from here. */
  granted_at: string;
  updated_at: string;
}

export interface PlanTables {
  account_plans: AccountPlansTable;
}
