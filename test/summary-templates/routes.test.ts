/**
 * Summary template routes through the real app and real keys: category filter (summary by
 * default), detail, `{errorCode, message}` for 400/404, standard shape for 401/403, and the
 * operator's templates file (replacing, disabling and adding templates; bad files refused at start).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTemplateFile, TemplateFileError } from '../../src/summary-templates/catalogue.js';
import { api, startTestApp, type TestApp } from '../support/app.js';

const dir = mkdtempSync(join(tmpdir(), 'parley-templates-'));
const file = join(dir, 'templates.json');
writeFileSync(
  file,
  JSON.stringify([
    {
      slug: 'sales-call',
      name: 'Sales call',
      description: 'Customer needs, objections, next steps.',
      category: 'summary',
      system_prompt: 'You summarize sales calls.',
      template_prompt: 'Summarize the call.',
      output_format: '## Needs\n## Objections\n## Next steps',
    },
    {
      slug: 'interview',
      name: 'Interview',
      category: 'summary',
      system_prompt: 's',
      template_prompt: 't',
      output_format: '## Answers',
      enabled: false,
    },
    {
      slug: 'discharge-letter',
      name: 'Discharge letter',
      description: null,
      category: 'medical',
      system_prompt: 's',
      template_prompt: 't',
      output_format: '## Plan',
    },
  ]),
);

describe('summary templates', () => {
  let t: TestApp;
  let key: string;
  let blockedKey: string;
  beforeAll(async () => {
    t = await startTestApp({ env: { PARLEY_SUMMARY_TEMPLATES_FILE: file } });
    key = (await t.app.deps.keys.createKey({})).api_key;
    const blocked = await t.app.deps.keys.createKey({});
    await t.app.deps.keys.setAccountFlags(blocked.account_id, { blocked: true });
    blockedKey = blocked.api_key;
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the summary category by default, with list fields only', async () => {
    const r = await api(t.url, 'GET', '/api/v1/summary-templates', { key });
    expect(r.status).toBe(200);
    const slugs = r.body.data.map((x: { slug: string }) => x.slug);
    expect(slugs).toEqual(['general-summary', 'meeting-minutes', 'action-items', 'lecture-notes', 'sales-call']);
    expect(r.body.data[1]).toEqual({
      slug: 'meeting-minutes',
      name: 'Meeting minutes',
      description: 'Minutes of a meeting: participants, topics, decisions and next steps.',
      category: 'summary',
    });
  });

  it('filters by medical, legal and all', async () => {
    const slugs = async (category: string) =>
      (await api(t.url, 'GET', `/api/v1/summary-templates?category=${category}`, { key })).body.data.map((x: { slug: string }) => x.slug);
    expect(await slugs('medical')).toEqual(['soap-note', 'medical-consultation', 'discharge-letter']);
    expect(await slugs('legal')).toEqual(['deposition-summary', 'client-meeting']);
    expect(await slugs('all')).toHaveLength(10);
    expect(await slugs('summary')).not.toContain('interview'); // disabled by the operator
  });

  it('answers 400 invalid_category in the {errorCode, message} shape', async () => {
    for (const q of ['?category=finance', '?category=', '?category=Summary', '?category=summary&category=legal']) {
      const r = await api(t.url, 'GET', `/api/v1/summary-templates${q}`, { key });
      expect(r.status, q).toBe(400);
      expect(r.body, q).toEqual({ errorCode: 'invalid_category', message: 'category must be one of summary, medical, legal, all.' });
    }
  });

  it('returns a template with its prompts and output format', async () => {
    const r = await api(t.url, 'GET', '/api/v1/summary-templates/soap-note', { key });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.data).sort()).toEqual(
      ['category', 'description', 'name', 'output_format', 'slug', 'system_prompt', 'template_prompt'].sort(),
    );
    expect(r.body.data).toMatchObject({
      slug: 'soap-note',
      category: 'medical',
      output_format: '## Subjective\n## Objective\n## Assessment\n## Plan',
    });
    const op = await api(t.url, 'GET', '/api/v1/summary-templates/discharge-letter', { key });
    expect(op.body.data).toMatchObject({ slug: 'discharge-letter', description: null, output_format: '## Plan' });
    expect(t.app.deps.summaryTemplates.getEnabledTemplate('meeting-minutes')?.name).toBe('Meeting minutes');
    expect(t.app.deps.summaryTemplates.getEnabledTemplate('interview')).toBeNull();
  });

  it('answers 404 template_not_found for missing and disabled templates', async () => {
    for (const slug of ['no-such-template', 'interview']) {
      const r = await api(t.url, 'GET', `/api/v1/summary-templates/${slug}`, { key });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ errorCode: 'template_not_found', message: `No enabled summary template "${slug}".` });
    }
  });

  it('keeps the standard error shape for 401 and 403', async () => {
    for (const path of ['/api/v1/summary-templates', '/api/v1/summary-templates/soap-note']) {
      const none = await api(t.url, 'GET', path);
      expect(none.status).toBe(401);
      expect(none.body.data).toMatchObject({ error_code: 'auth_missing_api_key', severity: 'fatal' });
      const blocked = await api(t.url, 'GET', path, { key: blockedKey });
      expect(blocked.status).toBe(403);
      expect(blocked.body.data).toMatchObject({ error_code: 'auth_account_blocked' });
    }
  });

  it('refuses a bad operator file with every problem listed', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify([
        { slug: 'Bad Slug', name: '', category: 'finance', system_prompt: 's', template_prompt: 't', output_format: 'o', extra: 1 },
        { slug: 'x', name: 'X', category: 'legal', system_prompt: 's', template_prompt: 't', output_format: 'o', enabled: 'yes' },
      ]),
    );
    let err: unknown;
    try {
      readTemplateFile(bad);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TemplateFileError);
    expect((err as TemplateFileError).problems).toEqual([
      'templates[0]: unknown field "extra"',
      'templates[0]: slug must be 1-64 characters a-z, 0-9 and "-"',
      'templates[0]: category must be one of summary, medical, legal',
      'templates[0]: name must be a non-empty string',
      'templates[1]: enabled must be true or false',
    ]);
    writeFileSync(bad, '{not json');
    expect(() => readTemplateFile(bad)).toThrow(/cannot read JSON/);
  });
});
