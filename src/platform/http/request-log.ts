/**
 * One log line per request (Fastify's own logging writes two: "incoming request" and
 * "request completed"; it is turned off in server.ts). Written when the response is done,
 * with what an operator needs: id, method, URL (secrets removed), status and duration.
 * PARLEY_REQUEST_LOG picks which requests: all (default), errors (status >= 400) or off.
 */
import { redactSecrets } from '../logging.js';
import type { HttpApp } from './types.js';

export const REQUEST_LOG_MODES = ['all', 'errors', 'off'] as const;
export type RequestLogMode = (typeof REQUEST_LOG_MODES)[number];

export function installRequestLog(app: HttpApp, mode: RequestLogMode): void {
  if (mode === 'off') return;
  const minStatus = mode === 'errors' ? 400 : 0;
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    if (status >= minStatus) {
      request.log.info(
        { method: request.method, url: redactSecrets(request.url), status, ms: Math.round(reply.elapsedTime * 10) / 10 },
        'request',
      );
    }
    done();
  });
}
