/**
 * `GET /api/v1/summary-templates` and `GET /api/v1/summary-templates/{slug}`. Their 400 and
 * 404 use the spec's `{errorCode, message}` shape (route config `errorShape`); 401/403 keep
 * the standard shape.
 */
import { Type } from 'typebox';
import { requireApiKey } from '../platform/auth/hooks.js';
import type { Authenticator } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { API_KEY, documentedInput, errors } from '../platform/http/api-doc.js';
import { ok } from '../platform/http/reply.js';
import type { HttpApp } from '../platform/http/types.js';
import type { SummaryTemplateCatalogue } from './catalogue.js';
import { CATEGORIES, type SummaryTemplate, type TemplateCategory } from './types.js';

const Item = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  category: Type.String(),
});
const Detail = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  category: Type.String(),
  system_prompt: Type.String(),
  template_prompt: Type.String(),
  output_format: Type.String(),
});

const item = (t: SummaryTemplate) => ({ slug: t.slug, name: t.name, description: t.description, category: t.category });

export function registerSummaryTemplateRoutes(app: HttpApp, deps: { auth: Authenticator; templates: SummaryTemplateCatalogue }): void {
  const config = { errorShape: 'summary-template' as const };
  app.get(
    '/api/v1/summary-templates',
    {
      config,
      preHandler: requireApiKey(deps.auth, 'header'),
      // category is checked by hand: an unknown value is 400 invalid_category, not validation_failed.
      ...documentedInput,
      schema: {
        tags: ['summary-templates'],
        security: API_KEY,
        summary: 'List enabled summary templates of a category (summary by default; all for every category).',
        querystring: Type.Object({
          category: Type.Optional(
            Type.Union(
              [...CATEGORIES, 'all'].map((c) => Type.Literal(c)),
              { default: 'summary', description: 'An unknown value is 400 invalid_category' },
            ),
          ),
        }),
        response: {
          200: Type.Object({ data: Type.Array(Item) }),
          ...errors(['invalid_category'], { auth: true, shape: 'summary-template' }),
        },
      },
    },
    async (request) => {
      const raw = (request.query as { category?: unknown }).category;
      const category = raw === undefined ? 'summary' : raw;
      if (typeof category !== 'string' || !([...CATEGORIES, 'all'] as string[]).includes(category)) {
        throw new AppError('invalid_category', {
          message: `category must be one of ${[...CATEGORIES, 'all'].join(', ')}.`,
          details: { category: typeof category === 'string' ? category : String(category) },
        });
      }
      return ok(deps.templates.list(category as TemplateCategory | 'all').map(item));
    },
  );
  app.get(
    '/api/v1/summary-templates/:slug',
    {
      config,
      preHandler: requireApiKey(deps.auth, 'header'),
      schema: {
        tags: ['summary-templates'],
        security: API_KEY,
        summary: 'One enabled summary template with its prompts and output format.',
        params: Type.Object({ slug: Type.String({ description: 'Template slug (from the list)' }) }),
        response: { 200: Type.Object({ data: Detail }), ...errors(['template_not_found'], { auth: true, shape: 'summary-template' }) },
      },
    },
    async (request) => {
      const { slug } = request.params as { slug: string };
      const t = deps.templates.getEnabledTemplate(slug);
      if (!t) throw new AppError('template_not_found', { message: `No enabled summary template "${slug}".` });
      return ok({ ...item(t), system_prompt: t.system_prompt, template_prompt: t.template_prompt, output_format: t.output_format });
    },
  );
}
