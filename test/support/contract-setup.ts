/**
 * Vitest setup: after each test, responses that broke their route's declared contract
 * (test/support/contract.ts) fail that test, naming the route, the status and the mismatch.
 * Fix by declaring the status/shape in the route's `schema.response`
 * (helpers in src/platform/http/api-doc.ts), or fix the handler if it sent the wrong thing.
 */
import { afterEach } from 'vitest';
import { takeViolations } from './contract.js';

afterEach(() => {
  const found = takeViolations();
  if (found.length === 0) return;
  const lines = found.map((v) => `- ${v.method} ${v.route} -> ${v.status}: ${v.problem}`);
  throw new Error(`Responses broke the OpenAPI contract of their routes:\n${lines.join('\n')}`);
});
