/**
 * Parley through a client that a third-party generator made from the served OpenAPI document
 * (openapi-typescript for the types, openapi-fetch for the calls), the way a team that does not
 * use src/client would start. Generate the types first, then run it against a server:
 *
 *   npm run -s openapi:types      # writes examples/openapi-fetch/parley-api.d.ts (not committed)
 *   PARLEY_API_KEY=svc_... npx tsx examples/openapi-fetch/client.ts
 *
 * PARLEY_BASE_URL defaults to http://localhost:8080. With `--json` it prints what it read as
 * one JSON object (test/platform/openapi-client.test.ts compiles this file against freshly
 * generated types and runs it against a real server).
 */
import createClient from 'openapi-fetch';
import type { paths } from './parley-api.js';

export async function tour(baseUrl: string, apiKey: string) {
  // The document declares the X-API-Key scheme on every route that needs it; openapi-fetch
  // sends what it is given, so the key goes in the client's default headers.
  const parley = createClient<paths>({ baseUrl, headers: { 'X-API-Key': apiKey } });

  const version = await parley.GET('/api/v1/version');
  const plan = await parley.GET('/api/v1/me/plan');
  // page and per_page are optional (defaults 1 and 20).
  const usage = await parley.GET('/api/v1/me/usage');
  const templates = await parley.GET('/api/v1/summary-templates', { params: { query: { category: 'all' } } });
  const voices = await parley.GET('/api/v1/tts/voices', { params: { query: { language: 'en-US' } } });
  const quota = await parley.POST('/api/v1/imports/check-quota', { body: { duration_ms: 60_000 } });
  // Errors are typed too: a task that does not exist is 404 recording_not_found.
  const missing = await parley.GET('/api/v1/tasks/{taskId}', { params: { path: { taskId: '00000000-0000-0000-0000-000000000000' } } });
  // The spec's own exception: summary-template errors are {errorCode, message} at top level.
  const badTemplate = await parley.GET('/api/v1/summary-templates/{slug}', { params: { path: { slug: 'no-such-template' } } });

  return {
    version: version.data?.data.version,
    planStatus: plan.response.status,
    usage: usage.data ? { total: usage.data.meta.total, per_page: usage.data.meta.per_page } : null,
    templates: templates.data?.data.map((t) => t.slug) ?? [],
    voices: voices.data?.data.voices.map((v) => v.voice_name) ?? [],
    quotaAllowed: quota.data?.data.allowed,
    missingTask: { status: missing.response.status, code: missing.error?.data.error_code },
    badTemplate: { status: badTemplate.response.status, code: badTemplate.error && 'errorCode' in badTemplate.error ? badTemplate.error.errorCode : null },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const apiKey = process.env.PARLEY_API_KEY;
  if (!apiKey) {
    console.error('usage: PARLEY_API_KEY=svc_... npx tsx examples/openapi-fetch/client.ts [--json]');
    process.exit(2);
  }
  const baseUrl = process.env.PARLEY_BASE_URL ?? 'http://localhost:8080';
  tour(baseUrl, apiKey).then(
    (r) => console.log(process.argv.includes('--json') ? JSON.stringify(r) : r),
    (err: Error & { cause?: { code?: string; message?: string } }) => {
      // fetch fails with "fetch failed" and the reason in `cause` when nothing answers.
      const unreachable = err.message === 'fetch failed';
      const reason = err.cause?.code ?? err.cause?.message;
      console.error(`error: ${unreachable ? `no Parley server answers at ${baseUrl} (${reason}); set PARLEY_BASE_URL` : err.message}`);
      process.exit(1);
    },
  );
}
