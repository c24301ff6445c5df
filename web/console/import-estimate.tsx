/**
 * What an import will cost before it is uploaded, from the server (POST /imports/check-quota
 * with the extension fields: translation languages, speakers, summary), part by part; and
 * where a waiting import is in the queue (the `queue_position` extension).
 */
import { useEffect, useState } from 'preact/hooks';
import { parley } from './api';
import type { Options } from './imports';
import { formatPoints } from './ui';

type QuotaCheck = Awaited<ReturnType<typeof parley.imports.checkQuota>>;

const REASONS: Record<string, string> = {
  insufficient_credit: 'the credit does not cover it',
  plan_not_allowed: 'the plan does not include imports',
  plan_daily_limit_reached: 'the plan’s daily limit is reached',
};

/** The server's check for this duration and these options, asked again whenever either changes. */
export function useEstimate(durationMs: number | null, o: Options): QuotaCheck | null {
  const [check, setCheck] = useState<QuotaCheck | null>(null);
  const summary = o.summary !== 'none';
  useEffect(() => {
    setCheck(null);
    if (durationMs === null) return;
    let live = true;
    parley.imports
      .checkQuota(durationMs, { translation_languages: o.translation, recognition_mode: o.mode, summary })
      .then((q) => live && setCheck(q))
      // The check is a prediction only; the upload says what is wrong.
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [durationMs, o.translation.join(), o.mode, summary]);
  return check;
}

export function EstimateNote({ check }: { check: QuotaCheck | null }) {
  if (!check) return null;
  const e = check.estimate;
  const rows: [string, number][] = [[`Speech recognition (${check.duration_minutes} min)`, e.recognition]];
  if (e.translation) rows.push(['Translation', e.translation]);
  if (e.diarization) rows.push(['Speakers (diarization)', e.diarization]);
  if (e.summary) rows.push(['Summary', e.summary]);
  return (
    <div class="estimate" data-testid="estimate">
      <table aria-label="Cost estimate">
        <tbody>
          {rows.map(([what, points]) => (
            <tr key={what}>
              <th scope="row">{what}</th>
              <td class="num">{formatPoints(points)}</td>
            </tr>
          ))}
          <tr class="total">
            <th scope="row">About</th>
            <td class="num">{formatPoints(e.total)} points</td>
          </tr>
        </tbody>
      </table>
      <p class={check.allowed ? 'muted small' : 'error'}>
        {!check.allowed
          ? `This import would be refused: ${REASONS[check.reason ?? ''] ?? check.reason}.`
          : check.is_unlimited
            ? 'Covered by your plan.'
            : `${formatPoints(check.remain_quota)} points available.${e.summary ? ' The summary is charged when it is made.' : ''}`}
      </p>
    </div>
  );
}

const ordinal = (n: number) => {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th');
  return `${n}${s}`;
};

/** Why a pending import shows 0 %: it waits for a worker, behind `position - 1` others. */
export function QueuePlace({ position }: { position: number | null | undefined }) {
  if (!position) return <p class="muted small queue">Waiting for a worker.</p>;
  return (
    <p class="muted small queue" data-testid="queue-position">
      {position === 1
        ? 'Waiting in the queue: next to start when a worker is free.'
        : `Waiting in the queue: ${ordinal(position)}, ${position - 1} ${position === 2 ? 'import' : 'imports'} ahead.`}
    </p>
  );
}
