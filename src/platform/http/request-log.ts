/**
 * One log line per request (Fastify's own logging writes two: "incoming request" and
 * "request completed"; it is turned off in server.ts). Written when the response is done,
 * with what an operator needs: id, method, URL (secrets removed), status and duration.
 * PARLEY_REQUEST_LOG picks which requests: all (default), errors (status >= 400) or off.
 *
 * The line is the JSON pino would write (level, time, the logger's bindings, reqId, msg and
 * the fields), built here and handed to the logger's own destination: every request pays for
 * it, and pino's general path (child bindings, redaction walks, serializers) cost several
 * times more for these few known fields (bench:rest). The URL still goes through
 * redactSecrets; the fields are the only ones, so no other secret can ride along.
 */
import pino, { type Logger } from 'pino';
import { redactSecrets } from '../logging.js';
import type { HttpApp } from './types.js';

export const REQUEST_LOG_MODES = ['all', 'errors', 'off'] as const;
export type RequestLogMode = (typeof REQUEST_LOG_MODES)[number];

export function installRequestLog(app: HttpApp, mode: RequestLogMode): void {
  if (mode === 'off') return;
  const logger = app.log as unknown as Logger;
  const stream = (logger as unknown as Record<symbol, { write(line: string): void }>)[pino.symbols.streamSym];
  const bindings = JSON.stringify(logger.bindings()).slice(1, -1);
  const prefix = `{"level":${logger.levels.values.info},"time":"`;
  const after = `"${bindings ? `,${bindings}` : ''},"reqId":`;
  const minStatus = mode === 'errors' ? 400 : 0;
  // The time stamp of the last line, reused while the clock shows the same millisecond.
  let stampMs = 0;
  let stamp = '';
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    if (status >= minStatus && stream && logger.isLevelEnabled('info')) {
      const ms = Math.round(reply.elapsedTime * 10) / 10;
      const nowMs = Date.now();
      if (nowMs !== stampMs) {
        stampMs = nowMs;
        stamp = new Date(nowMs).toISOString();
      }
      // The id (server.ts: a UUID or [A-Za-z0-9._-]) and the method (an HTTP token) need no
      // JSON escaping; the URL does.
      stream.write(
        `${prefix}${stamp}${after}"${request.id}","msg":"request","method":"${request.method}","url":${JSON.stringify(redactSecrets(request.url))},"status":${status},"ms":${ms}}\n`,
      );
    }
    done();
  });
}
