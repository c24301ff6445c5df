/**
 * The plan day in a configured IANA time zone (PARLEY_TIME_ZONE): daily limits count minutes
 * from local midnight to the next local midnight, DST included.
 */

/** Building a formatter is costly (it is on every limits check): one per time zone. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

function offsetMs(instant: number, timeZone: string): number {
  if (timeZone === 'UTC') return 0;
  const parts = formatter(timeZone).formatToParts(new Date(instant));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** UTC instant of local midnight of the local date `y-m-d` in `timeZone`. */
function localMidnight(y: number, m: number, d: number, timeZone: string): number {
  const guess = Date.UTC(y, m, d);
  let t = guess - offsetMs(guess, timeZone);
  // A second pass settles days whose offset differs from the guess's (DST changes).
  t = guess - offsetMs(t, timeZone);
  return t;
}

export function dayBounds(now: Date, timeZone: string): { start: Date; end: Date } {
  const local = new Date(now.getTime() + offsetMs(now.getTime(), timeZone));
  const y = local.getUTCFullYear();
  const m = local.getUTCMonth();
  const d = local.getUTCDate();
  return { start: new Date(localMidnight(y, m, d, timeZone)), end: new Date(localMidnight(y, m, d + 1, timeZone)) };
}
