import { ERRORS, type ErrorDefinition } from './registry.js';

/** docs/errors.md, generated from the registry (`npm run docs:errors`). */
export function renderErrorDocs(): string {
  const rows = Object.entries(ERRORS as Record<string, ErrorDefinition>).map(([code, d]) => {
    const variants = d.statusBy
      ? Object.entries(d.statusBy)
          .map(([v, s]) => `${s} on ${v}`)
          .join(', ')
      : '';
    const status = d.status === null ? '—' : String(d.status);
    return `| \`${code}\` | ${status}${variants ? ` (${variants})` : ''} | ${d.severity} | ${d.context} | ${d.message.replace(/\|/g, '\\|')} | ${d.parley ? 'Parley' : 'spec'} |`;
  });
  return [
    '# Error codes',
    '',
    'Generated from `src/platform/errors/registry.ts` by `npm run docs:errors`; do not edit by hand.',
    '',
    'Every error has the standard shape `{error_code, severity, message, context, sid?, request_id?, timestamp, details}`;',
    'REST wraps it in `data`, SSE sends it as an `error` event, WebSocket as a message of `type` `error`.',
    'Floating-subtitle token endpoints answer `{error: <code>}` and the summary-template endpoints `{errorCode, message}`',
    'for 400 and 404. "—" means the code travels only over WebSocket (or has no HTTP status in the spec); where such a',
    'code must be answered over HTTP, 500 is used. Codes marked "Parley" are defined by Parley where the spec is silent.',
    '',
    '| code | HTTP | severity | context | message | source |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
