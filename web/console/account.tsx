/** Account: plan, credit lots, usage history (a chart of the last 14 days and the paged list), key settings. */
import { useState } from 'preact/hooks';
import { type Plan, parley, type UsageRecord } from './api';
import { Card, ErrorNote, formatDate, formatPoints, Table, useLoad } from './ui';

const CHART_DAYS = 14;

const usagePage = async (page: number) => {
  const r = await parley.me.usage({ page, per_page: 20 });
  return { data: r.data, meta: r.meta };
};

function PlanCard({ plan }: { plan: Plan }) {
  const features = Array.isArray(plan.features) ? plan.features : null;
  return (
    <Card title="Plan" id="plan">
      <dl class="facts">
        <dt>Billing</dt>
        <dd>{plan.mode === 'credit' ? 'Credit (points)' : 'Unlimited'}</dd>
        {plan.mode === 'credit' ? (
          <>
            <dt>Available credit</dt>
            <dd class="big">{formatPoints(plan.available_credit)} points</dd>
          </>
        ) : null}
        {plan.plan ? (
          <>
            <dt>Plan</dt>
            <dd>{plan.plan.name}</dd>
            <dt>Expires</dt>
            <dd>{formatDate(plan.plan.expired_at)}</dd>
          </>
        ) : null}
      </dl>
      {features ? (
        <ul class="features">
          {[...features, ...(plan.oneoff_features ?? [])].map((f) => (
            <li key={f.slug} class={f.included ? 'yes' : 'no'}>
              {f.included ? '✓' : '✗'} {f.name}
            </li>
          ))}
        </ul>
      ) : null}
      {plan.limits ? (
        <table class="compact">
          <caption>Limits (empty: unrestricted)</caption>
          <tbody>
            {Object.entries(plan.limits).map(([k, v]) => (
              <tr key={k}>
                <th scope="row">{k.replaceAll('_', ' ')}</th>
                <td>{v ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Card>
  );
}

function LotsCard() {
  const lots = useLoad(async () => parley.me.creditLots());
  return (
    <Card title="Credit lots" id="lots">
      <ErrorNote error={lots.error} />
      {lots.value && lots.value.length === 0 ? <p class="muted">No credit lots (unlimited plans draw no points).</p> : null}
      {lots.value && lots.value.length > 0 ? (
        <Table columns={['Pool', 'Remaining', 'Expires', 'Granted']}>
          {lots.value.map((lot) => (
            <tr key={`${lot.pool}-${lot.granted_at}-${lot.expires_at}`}>
              <td>{lot.pool === 'key' ? 'This key' : 'Account'}</td>
              <td class="num">{formatPoints(lot.remaining_points)}</td>
              <td>{lot.expires_at ? formatDate(lot.expires_at) : 'Never'}</td>
              <td>{formatDate(lot.granted_at)}</td>
            </tr>
          ))}
        </Table>
      ) : null}
    </Card>
  );
}

/** Points per day for the last CHART_DAYS days, as bars (a table of the same numbers follows for screen readers). */
function UsageChart({ records }: { records: UsageRecord[] }) {
  const days: Array<{ day: string; points: number }> = [];
  const today = new Date();
  for (let i = CHART_DAYS - 1; i >= 0; i--) {
    const d = new Date(today.getFullYear(), today.getMonth(), today.getDate() - i);
    days.push({ day: d.toISOString().slice(0, 10), points: 0 });
  }
  for (const r of records) {
    if (!r.occurred_at) continue;
    const d = new Date(r.occurred_at);
    const key = new Date(d.getFullYear(), d.getMonth(), d.getDate()).toISOString().slice(0, 10);
    const slot = days.find((x) => x.day === key);
    if (slot) slot.points += r.points;
  }
  const max = Math.max(1, ...days.map((d) => d.points));
  const w = 56;
  const h = 120;
  const total = days.reduce((s, d) => s + d.points, 0);
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${days.length * w} ${h + 20}`}
        role="img"
        aria-label={`Points used per day over the last ${CHART_DAYS} days: ${formatPoints(total)} in all`}
      >
        {days.map((d, i) => {
          const bh = (d.points / max) * h;
          return (
            <g key={d.day}>
              <rect x={i * w + 8} y={h - bh} width={w - 16} height={Math.max(bh, 0.5)} class="bar">
                <title>
                  {d.day}: {formatPoints(d.points)} points
                </title>
              </rect>
              <text x={i * w + w / 2} y={h + 16} text-anchor="middle" class="axis">
                {d.day.slice(8)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>
        Points per day, last {CHART_DAYS} days (most {formatPoints(max === 1 && total === 0 ? 0 : max)} in a day; {formatPoints(total)} in
        all).
      </figcaption>
    </figure>
  );
}

function UsageCard() {
  const [page, setPage] = useState(1);
  const usage = useLoad(() => usagePage(page), [page]);
  // The chart reads the first pages (newest first) back to CHART_DAYS days ago.
  const recent = useLoad(async () => {
    const since = Date.now() - CHART_DAYS * 86_400_000;
    const out: UsageRecord[] = [];
    for (let p = 1; p <= 5; p++) {
      const { data, meta } = await usagePage(p);
      out.push(...data);
      const last = data.at(-1)?.occurred_at;
      if (p >= meta.last_page || (last && Date.parse(last) < since)) break;
    }
    return out;
  });
  const meta = usage.value?.meta;
  return (
    <Card
      title="Usage"
      id="usage"
      actions={
        <button
          type="button"
          onClick={() => {
            void usage.reload();
            void recent.reload();
          }}
        >
          Refresh
        </button>
      }
    >
      <ErrorNote error={usage.error ?? recent.error} />
      {recent.value ? <UsageChart records={recent.value} /> : null}
      {usage.value ? (
        <>
          <Table columns={['When', 'What', 'Points', 'State']}>
            {usage.value.data.map((r, i) => (
              <tr key={`${r.task_id}-${r.occurred_at}-${i}`}>
                <td>{formatDate(r.occurred_at)}</td>
                <td>{r.task_id ? <a href={`#/library/${r.task_id}`}>{r.type}</a> : r.type}</td>
                <td class="num">{formatPoints(r.points)}</td>
                <td>{r.in_progress ? 'running' : r.refunded ? `refunded (${r.refund_reason ?? ''})` : 'charged'}</td>
              </tr>
            ))}
          </Table>
          {usage.value.data.length === 0 ? <p class="muted">No usage yet.</p> : null}
          {meta && meta.last_page > 1 ? (
            <nav class="pager" aria-label="Usage pages">
              <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                Newer
              </button>
              <span>
                Page {meta.current_page} of {meta.last_page}
              </span>
              <button type="button" disabled={page >= meta.last_page} onClick={() => setPage(page + 1)}>
                Older
              </button>
            </nav>
          ) : null}
        </>
      ) : null}
    </Card>
  );
}

function KeyCard() {
  const key = useLoad(async () => parley.me.key());
  const k = key.value;
  return (
    <Card title="API key settings" id="key">
      <ErrorNote error={key.error} />
      {k ? (
        <dl class="facts">
          <dt>Name</dt>
          <dd>{k.name}</dd>
          <dt>Expires</dt>
          <dd>{k.expires_at ? formatDate(k.expires_at) : 'Never'}</dd>
          <dt>Monthly spend limit</dt>
          <dd>
            {k.monthly_spend_limit === null ? 'None' : `${formatPoints(k.monthly_spent)} of ${formatPoints(k.monthly_spend_limit)} points`}
          </dd>
          <dt>Concurrent sessions</dt>
          <dd>{k.max_concurrent_sessions ?? 'Plan default'}</dd>
          <dt>Account credit pool</dt>
          <dd>{k.allow_account_pool ? 'Allowed' : 'Not allowed'}</dd>
          <dt>Webhook URL</dt>
          <dd>{k.webhook_url ?? 'None'}</dd>
          <dt>Source IP restriction</dt>
          <dd>{k.ip_restricted ? 'Yes' : 'No'}</dd>
        </dl>
      ) : null}
      <p class="muted small">
        Settings are changed by the operator (<code>npm run -s admin -- update-key</code>); the key itself and its webhook secret are never
        shown.
      </p>
    </Card>
  );
}

export function AccountScreen({ plan, onRefresh }: { plan: Plan; onRefresh: () => void }) {
  return (
    <div class="screen">
      <div class="screen-head">
        <h1>Account</h1>
        <button type="button" onClick={onRefresh}>
          Refresh plan
        </button>
      </div>
      <div class="grid two">
        <PlanCard plan={plan} />
        <KeyCard />
      </div>
      <LotsCard />
      <UsageCard />
    </div>
  );
}
