/**
 * Maps everything thrown in a request to the spec's error bodies: AppError by its registry
 * entry, Fastify's schema/parse errors to `validation_failed` (or the request-size and
 * media-type codes), anything else to `internal_error` (logged, never shown).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, renderErrorBody } from '../errors/app-error.js';
import type { HttpApp } from './types.js';

function fromFastifyError(err: FastifyError, received?: string): AppError | null {
  if (err.validation) {
    const first = err.validation[0];
    const path = (first?.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    const missing = (first?.params as { missingProperty?: string } | undefined)?.missingProperty;
    const field = [path, missing].filter(Boolean).join('.') || err.validationContext || 'request';
    return new AppError('validation_failed', {
      message: `Invalid ${err.validationContext ?? 'request'}: ${field} ${first?.message ?? 'is not valid'}`.trim(),
      details: {
        field,
        location: err.validationContext ?? null,
        errors: err.validation.map((v) => ({ path: v.instancePath, message: v.message ?? null })),
      },
    });
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('request_too_large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', {
        message: `This endpoint takes a JSON body: send Content-Type: application/json${received ? ` (got ${received})` : ''}.`,
        details: { expected: 'application/json', received: received ?? null },
      });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('validation_failed', {
        message: 'The request body is not valid JSON.',
        details: { field: 'body', reason: 'malformed_json' },
      });
  }
  if (err instanceof SyntaxError || err.statusCode === 400) {
    return new AppError('validation_failed', { message: 'The request is not valid.', details: { field: 'body', reason: 'malformed' } });
  }
  return null;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  const cfg = request.routeOptions.config;
  const variant = cfg?.errorVariant;
  const e =
    variant && err.variant === 'rest'
      ? new AppError(err.code, {
          message: err.message,
          details: err.details ?? undefined,
          sid: err.sid,
          context: err.context,
          variant,
          headers: err.headers,
        })
      : err;
  for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
  return reply
    .code(e.status)
    .type('application/json; charset=utf-8')
    .send(renderErrorBody(e, cfg?.errorShape ?? 'standard', request.id));
}

export function installErrorHandling(app: HttpApp): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (reply.sent || reply.raw.headersSent) return;
    let appError = error instanceof AppError ? error : fromFastifyError(error as FastifyError, request.headers['content-type']);
    if (!appError) {
      request.log.error({ err: error }, 'unhandled error');
      appError = new AppError('internal_error');
    } else if (appError.code === 'internal_error' || appError.status >= 500) {
      request.log.error({ err: error, error_code: appError.code }, 'request failed');
    }
    return sendError(request, reply, appError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new AppError('not_found', { details: { method: request.method, path: request.url.split('?')[0] } })),
  );
}

/**
 * Errors Node's HTTP parser raises before Fastify sees a request (headers over the size limit:
 * 431; a malformed request line: 400), answered in the standard error shape instead of
 * Node's bare status line.
 */
export function clientErrorResponse(err: NodeJS.ErrnoException): string {
  const e =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('request_headers_too_large', {
          message: 'The request headers are too large (16 KB in all by default); send the API key and fewer or shorter headers.',
        })
      : new AppError('validation_failed', {
          message: 'The HTTP request is malformed.',
          details: { field: 'request', reason: err.code ?? null },
        });
  const body = JSON.stringify(renderErrorBody(e, 'standard'));
  return [
    `HTTP/1.1 ${e.status} ${e.status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}
