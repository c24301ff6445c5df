/**
 * Search across an account's task library: checks the query parameters (the spec's
 * `validation_failed` with the field, as the paged lists do), asks the index, and turns each
 * entry found into a hit: the task it belongs to, where in it (field, sentence, start and end
 * ms for the player's jump), the speaker as shown, and a snippet with its matches marked.
 */
import { normalizeLanguage } from '../languages.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { intParam } from '../platform/http/query.js';
import type { TaskType } from '../tasks/status.js';
import { MAX_QUERY_CHARS, parseQuery } from './query.js';
import { makeSnippet, type Snippet } from './snippet.js';
import type { SearchFilters, SearchStore } from './store.js';
import type { SearchField } from './tables.js';

export const TASK_TYPES: readonly TaskType[] = ['transcribe', 'conversation', 'record', 'broadcast'];
export const PER_PAGE = { min: 1, max: 50, fallback: 20 } as const;

export interface SearchHit {
  task_id: string;
  title: string;
  type: TaskType;
  type_source: string;
  created_at: string;
  duration_ms: number;
  field: SearchField;
  sid: number | null;
  language: string | null;
  speaker_id: string | null;
  speaker_label: string | null;
  /** Where the player jumps: the sentence's start (ms from the recording's start); null for a title or summary. */
  start_ms: number | null;
  end_ms: number | null;
  snippet: Snippet['text'];
  highlights: Snippet['highlights'];
}

const invalid = (field: string, message: string, details: Record<string, unknown> = {}) =>
  new AppError('validation_failed', { message, details: { field, ...details } });

function text(query: Record<string, unknown>, name: string, max: number): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw invalid(name, `${name} must be given once.`);
  if (v.length > max) throw invalid(name, `${name} must be at most ${max} characters.`, { max });
  return v;
}

/** An ISO 8601 date (a whole UTC day) or date-time; `end` makes a date the end of its day. */
function instant(query: Record<string, unknown>, name: string, end: boolean): string | undefined {
  const v = text(query, name, 40);
  if (v === undefined) return undefined;
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(v);
  const ms = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(v) ? Date.parse(v) : Number.NaN;
  if (Number.isNaN(ms)) throw invalid(name, `${name} must be an ISO 8601 date (2026-05-01) or date-time with a zone.`);
  return new Date(dateOnly && end ? ms + 86_400_000 : ms).toISOString();
}

export interface SearchRequest {
  q: string;
  filters: SearchFilters;
  page: number;
  perPage: number;
}

/** The query string of GET /api/v1/search, checked. */
export function searchRequest(query: Record<string, unknown>): SearchRequest {
  const q = text(query, 'q', MAX_QUERY_CHARS);
  if (q === undefined) throw invalid('q', 'q is required.');
  const type = text(query, 'type', 20);
  if (type !== undefined && !(TASK_TYPES as readonly string[]).includes(type)) {
    throw invalid('type', `type must be one of ${TASK_TYPES.join(', ')}.`, { valid_values: TASK_TYPES });
  }
  const rawLanguage = text(query, 'language', 35);
  const language = rawLanguage === undefined ? undefined : normalizeLanguage(rawLanguage);
  if (language === null) throw invalid('language', 'language must be a BCP 47 tag such as en or en-US.');
  const speaker = text(query, 'speaker', 100);
  if (speaker !== undefined && !speaker.trim()) throw invalid('speaker', 'speaker must not be empty.');
  const createdFrom = instant(query, 'from', false);
  const createdTo = instant(query, 'to', true);
  if (createdFrom && createdTo && createdFrom >= createdTo) throw invalid('to', 'to must be after from.');
  return {
    q,
    filters: { type: type as TaskType | undefined, language, speaker, createdFrom, createdTo },
    page: intParam(query, 'page', 1, 100_000, 1),
    perPage: intParam(query, 'per_page', PER_PAGE.min, PER_PAGE.max, PER_PAGE.fallback),
  };
}

export class SearchService {
  constructor(private readonly store: SearchStore) {}

  async search(principal: Principal, req: SearchRequest) {
    const terms = parseQuery(req.q);
    const { rows, total, capped } = await this.store.search(
      principal.accountId,
      terms,
      req.filters,
      req.perPage,
      (req.page - 1) * req.perPage,
    );
    const labels = await this.store.speakerLabels([...new Set(rows.map((r) => r.taskId))]);
    const data: SearchHit[] = [];
    for (const r of rows) {
      let { startMs, endMs } = r;
      // A speaker's name jumps to where that speaker first speaks.
      if (r.field === 'speaker' && r.speakerId !== null)
        ({ startMs, endMs } = (await this.store.firstSpoken(r.taskId, r.speakerId)) ?? { startMs, endMs });
      const shown = r.speakerId === null ? null : (labels.get(r.taskId)?.[r.speakerId] ?? r.speakerId);
      const snippet = makeSnippet(r.body, terms);
      data.push({
        task_id: r.taskId,
        title: r.title,
        type: r.type,
        type_source: r.typeSource,
        created_at: r.createdAt,
        duration_ms: r.durationMs,
        field: r.field,
        sid: r.sid,
        language: r.language,
        speaker_id: r.speakerId,
        speaker_label: shown,
        start_ms: startMs,
        end_ms: endMs,
        snippet: snippet.text,
        highlights: snippet.highlights,
      });
    }
    return {
      data,
      meta: {
        current_page: req.page,
        last_page: Math.max(1, Math.ceil(total / req.perPage)),
        per_page: req.perPage,
        total,
        // Parley's addition to the paged lists' meta: `total` is the bound, more entries match.
        total_capped: capped,
      },
    };
  }
}
