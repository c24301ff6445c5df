/**
 * One signed POST to a receiver. Redirects are not followed (a 3xx is a failure), the answer
 * must arrive within the limit, and the connection goes to the address the SSRF guard checked.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { ForbiddenTargetError, resolveTarget } from './ssrf.js';

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** The answer's Retry-After header, when it had one (caption sinks honour it; webhooks keep their fixed schedule). */
  retryAfter?: string;
}

export interface SendInput {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivate: boolean;
}

export async function postWebhook(input: SendInput): Promise<SendResult> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null, retryAfter?: string): SendResult => ({
    ok: error === null && statusCode !== null && statusCode >= 200 && statusCode < 300,
    statusCode,
    error,
    durationMs: Math.round(performance.now() - started),
    ...(retryAfter === undefined ? {} : { retryAfter }),
  });
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    return done(null, 'invalid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return done(null, `unsupported scheme ${url.protocol}`);
  let target: Awaited<ReturnType<typeof resolveTarget>>;
  try {
    target = await resolveTarget(url, input.allowPrivate);
  } catch (err) {
    return done(null, err instanceof ForbiddenTargetError ? err.message : String(err));
  }
  // Pin the connection to the checked address (Node asks for one or all addresses).
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = mod.request(
      url,
      { method: 'POST', headers: { ...input.headers, 'Content-Length': String(Buffer.byteLength(input.body)) }, lookup, agent: false },
      (res) => {
        const code = res.statusCode ?? null;
        const retryAfter = typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : undefined;
        // Only the status counts; the body is drained so the socket closes cleanly.
        res.resume();
        res.on('end', () =>
          finish(
            done(
              code,
              code !== null && code >= 300 && code < 400
                ? `redirect ${code} not followed`
                : code !== null && (code < 200 || code >= 300)
                  ? `HTTP ${code}`
                  : null,
              retryAfter,
            ),
          ),
        );
        res.on('error', (err) => finish(done(code, err.message)));
      },
    );
    const timer = setTimeout(() => {
      finish(done(null, `no answer within ${input.timeoutMs} ms`));
      req.destroy();
    }, input.timeoutMs);
    req.on('error', (err) => finish(done(null, err.message)));
    req.end(input.body);
  });
}
