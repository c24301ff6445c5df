/**
 * The contract check covers SSE: every event a test receives from an SSE route is checked
 * against the event schemas the route declares (x-sse-events), so an event with a wrong
 * payload, or one the route never declared, fails the test that received it.
 */
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errors, sse } from '../../src/platform/http/api-doc.js';
import { openSse } from '../../src/platform/http/sse.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { checkedResponses, takeViolations } from '../support/contract.js';

describe('SSE contract check', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      routes: (app) => {
        app.http.get(
          '/test/sse-drift',
          {
            schema: {
              summary: 'drift',
              response: {
                200: sse('test', { tick: Type.Object({ n: Type.Integer() }), done: Type.Object({ total: Type.Integer() }) }),
                ...errors([]),
              },
            },
          },
          async (request, reply) => {
            const as = (request.query as { as?: string }).as;
            const s = openSse(request, reply);
            s.send('tick', { n: as === 'string' ? 'one' : 1 });
            if (as === 'undeclared') s.send('surprise', {});
            s.comment('heartbeat');
            s.send('done', { total: 1 });
            s.close();
          },
        );
      },
    });
  });
  afterAll(() => t?.close());

  const read = async (as: string) => {
    const res = await fetch(`${t.url}/test/sse-drift?as=${as}`);
    return res.text();
  };

  it('conforming events pass and are recorded as checked', async () => {
    takeViolations();
    expect(await read('ok')).toContain('event: done');
    expect(takeViolations()).toEqual([]);
    expect(checkedResponses().has('SSE GET /test/sse-drift tick')).toBe(true);
    expect(checkedResponses().has('SSE GET /test/sse-drift done')).toBe(true);
  });

  it('a payload that breaks its event schema is a violation naming the event and the field', async () => {
    await read('string');
    const v = takeViolations();
    expect(v).toHaveLength(1);
    expect(v[0]!.route).toBe('/test/sse-drift');
    expect(v[0]!.problem).toMatch(/event "tick" does not match its schema: \/n must be integer/);
  });

  it('an event the route does not declare is a violation', async () => {
    await read('undeclared');
    const v = takeViolations();
    expect(v).toHaveLength(1);
    expect(v[0]!.problem).toMatch(/event "surprise" is not declared \(declared: tick, done\)/);
  });
});
