/** GET /api/v1/me/plan, /me/credit-lots, /me/usage (spec "Account"). Never 402. */
import { Type } from 'typebox';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import type { Authenticator } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { errors, since } from '../platform/http/api-doc.js';
import { ok, okShared } from '../platform/http/reply.js';
import type { HttpApp } from '../platform/http/types.js';
import type { AccountService } from './service.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const IntOrNull = Nullable(Type.Integer());
const Feature = Type.Object({ slug: Type.String(), name: Type.String(), included: Type.Boolean() });

const Limits = Type.Object({
  daily_soft_limit_minutes: IntOrNull,
  daily_hard_limit_minutes: IntOrNull,
  max_concurrent_sessions: IntOrNull,
  daily_used_minutes: IntOrNull,
  max_transcription_languages: IntOrNull,
  max_session_minutes: IntOrNull,
  rolling_limit_minutes: IntOrNull,
  rolling_used_minutes: IntOrNull,
  auth_total_limit_minutes: IntOrNull,
  auth_total_used_minutes: IntOrNull,
  restriction_recovery_at: Nullable(Type.String({ format: 'date-time' })),
});

const PlanShape = Type.Union([
  Type.Object(
    { mode: Type.Literal('credit'), plan: Type.Null(), available_credit: Type.Number() },
    { title: 'Credit', description: 'Credit mode' },
  ),
  Type.Object(
    {
      mode: Type.Literal('unlimited'),
      plan: Type.Object({ name: Type.String(), expired_at: Nullable(Type.String()) }),
      features: Type.Array(Feature),
      oneoff_features: Type.Array(Feature),
      limits: Limits,
    },
    { title: 'PlanBoundUnlimited', description: 'Plan-bound unlimited' },
  ),
  Type.Object(
    {
      mode: Type.Literal('unlimited'),
      plan: Type.Null(),
      features: Type.Object({ all: Type.Literal(true) }),
      expired_at: Nullable(Type.String()),
    },
    { title: 'Unlimited', description: 'Unlimited without plan restrictions' },
  ),
]);

const Lot = Type.Object({
  pool: Type.Union([Type.Literal('key'), Type.Literal('account')]),
  remaining_points: Type.Number(),
  expires_at: Nullable(Type.String()),
  granted_at: Type.String(),
});

const Usage = Type.Object({
  task_id: Nullable(Type.String()),
  type: Type.String({ description: 'recording, broadcast, import, summary, regen_summary, retranslate, summary_translate; open enum' }),
  points: Type.Number(),
  in_progress: Type.Boolean(),
  refunded: Type.Boolean(),
  refund_reason: Nullable(Type.String()),
  occurred_at: Nullable(Type.String()),
  ended_at: Nullable(Type.String()),
});

const UsageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 5, maximum: 20, default: 20 })),
});

export function registerAccountRoutes(app: HttpApp, deps: { auth: Authenticator; account: AccountService }): void {
  // Authentication runs first, so a request without a key is 401 whatever its query.
  const onRequest = requireApiKey(deps.auth, 'header');
  const base = { tags: ['account'], security: [{ apiKey: [] }] };

  app.get(
    '/api/v1/me/plan',
    {
      onRequest,
      schema: {
        ...base,
        summary: 'The plan of the key (three shapes); works at zero balance',
        response: { 200: Type.Object({ data: PlanShape }), ...errors([], { auth: true }) },
        ...since('1.9.0'),
      },
    },
    async (request) => {
      const view = await deps.account.plan(principalOf(request));
      return Object.isFrozen(view) ? okShared(view) : ok(view); // frozen: a plan-bound view, handed out again
    },
  );

  app.get(
    '/api/v1/me/credit-lots',
    {
      onRequest,
      schema: {
        ...base,
        summary: 'Credit lots with credit left, soonest expiry first',
        response: { 200: Type.Object({ data: Type.Array(Lot) }), ...errors([], { auth: true }) },
      },
    },
    async (request) => ok(await deps.account.creditLots(principalOf(request))),
  );

  app.get<{ Querystring: { page: number; per_page: number } }>(
    '/api/v1/me/usage',
    {
      onRequest,
      schema: {
        ...base,
        summary: 'Usage records, newest first',
        querystring: UsageQuery,
        response: {
          200: Type.Object({
            data: Type.Array(Usage),
            meta: Type.Object({ current_page: Type.Integer(), last_page: Type.Integer(), per_page: Type.Integer(), total: Type.Integer() }),
          }),
          ...errors([], { auth: true, input: true }),
        },
      },
    },
    async (request) => {
      // The schema coerces "1e309" to Infinity, which its integer and bound checks let through
      // (the fuzzer's seed 1905 found the 500 it then caused in the database).
      const { page, per_page } = request.query;
      for (const [field, value] of [
        ['page', page],
        ['per_page', per_page],
      ] as const) {
        if (value !== undefined && !Number.isFinite(value)) {
          throw new AppError('validation_failed', { message: `${field} must be a whole number.`, details: { field } });
        }
      }
      return deps.account.usage(principalOf(request), page, per_page);
    },
  );
}
