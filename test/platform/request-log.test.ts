/**
 * One log line per HTTP request (issue 19), and PARLEY_REQUEST_LOG choosing which requests
 * get it: all, errors (status >= 400) or off.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logging.js';
import { startTestApp, type TestApp, type TestAppOptions } from '../support/app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function appLogging(mode: string | undefined, routes?: TestAppOptions['routes']) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      cb();
    },
  });
  t = await startTestApp({ logger: createLogger('info', sink), env: mode ? { PARLEY_REQUEST_LOG: mode } : {}, routes });
  return { url: t.url, lines };
}

const requestLines = (lines: Record<string, unknown>[]) => lines.filter((l) => l.msg === 'request');

describe('request log', () => {
  it('by default writes exactly one info line per request, with id, method, URL, status and duration', async () => {
    const { url, lines } = await appLogging(undefined);
    const ok = await fetch(`${url}/api/v1/version`, { headers: { 'x-request-id': 'req-one' } });
    expect(ok.status).toBe(200);
    const missing = await fetch(`${url}/api/v1/me/plan?api_key=svc_${'a'.repeat(32)}`);
    expect(missing.status).toBe(401);
    const mine = lines.filter((l) => l.reqId === 'req-one');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ level: 30, service: 'parley', msg: 'request', method: 'GET', url: '/api/v1/version', status: 200 });
    expect(Date.parse(mine[0]!.time as string)).toBeGreaterThan(0);
    expect(typeof mine[0]!.ms).toBe('number');
    const all = requestLines(lines);
    expect(all).toHaveLength(2);
    expect(all[1]).toMatchObject({ status: 401, url: '/api/v1/me/plan?api_key=[redacted]' });
    // Fastify's own two lines per request are off.
    expect(lines.some((l) => l.msg === 'incoming request' || l.msg === 'request completed')).toBe(false);
  });

  it("lines a handler or the error handler writes through request.log carry the request's id (loggers are built only when used)", async () => {
    const { url, lines } = await appLogging(undefined, (app) => {
      app.http.get('/test/log-and-fail', async (request) => {
        request.log.debug('not written at info');
        request.log.info({ step: 1 }, 'handler line');
        request.log.child({ part: 'inner' }).warn('child line');
        throw new Error('boom');
      });
    });
    const r = await fetch(`${url}/test/log-and-fail`, { headers: { 'x-request-id': 'req-boom' } });
    expect(r.status).toBe(500);
    const mine = lines.filter((l) => l.reqId === 'req-boom');
    expect(mine.map((l) => l.msg)).toEqual(['handler line', 'child line', 'unhandled error', 'request']);
    expect(mine[0]).toMatchObject({ level: 30, service: 'parley', step: 1 });
    expect(mine[1]).toMatchObject({ level: 40, part: 'inner' });
    expect(mine[2]).toMatchObject({ level: 50, err: expect.objectContaining({ message: 'boom' }) });
  });

  it('errors: only requests answered with status >= 400', async () => {
    const { url, lines } = await appLogging('errors');
    expect((await fetch(`${url}/api/v1/version`)).status).toBe(200);
    expect((await fetch(`${url}/api/v1/me/plan`)).status).toBe(401);
    expect(requestLines(lines).map((l) => l.status)).toEqual([401]);
  });

  it('off: no request lines', async () => {
    const { url, lines } = await appLogging('off');
    expect((await fetch(`${url}/api/v1/version`)).status).toBe(200);
    expect((await fetch(`${url}/api/v1/me/plan`)).status).toBe(401);
    expect(requestLines(lines)).toEqual([]);
  });

  it('refuses an unknown mode at start', async () => {
    await expect(appLogging('verbose')).rejects.toThrow(/PARLEY_REQUEST_LOG must be one of all, errors, off/);
  });
});
