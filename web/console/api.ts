/**
 * The console's only door to the server: the typed client of src/client/ (REST, SSE read
 * with fetch so the key stays in a header, the live WebSocket with its ticket) on this
 * page's origin, with the signed-in key; and the shapes the screens use.
 */
import { type OperationKey, ParleyClient, type Success } from '../../src/client/index.js';

export type { ImportInput, LiveEvent, LiveSession } from '../../src/client/index.js';
export { ParleyError } from '../../src/client/index.js';

/** The one client of the page ({base_url} and {realtime_url} are both this origin). */
export const parley = new ParleyClient({ baseUrl: location.origin });

/** The signed-in key (empty: signed out). */
export const setKey = (key: string) => parley.setApiKey(key || undefined);

// --- Shapes the screens use (the interface's resources) -------------------------------------
// Taken from the operations the server declares (src/client/api-types.ts, generated from its
// OpenAPI document), so a field the server renames or drops fails this build, not the page.

/** The `data` of an operation's success response. */
type Data<K extends OperationKey> = Success<K> extends { data: infer D } ? D : never;

/** A task of the list (spec "Task (list item)"). */
export type Task = Data<'GET /api/v1/tasks'>['tasks'][number];
/** One task with its detail fields. */
export type TaskDetail = Data<'GET /api/v1/tasks/{taskId}'>;
export type ImportItem = Data<'GET /api/v1/imports'>[number];
export type UsageRecord = Data<'GET /api/v1/me/usage'>[number];
export type Broadcast = Data<'GET /api/v1/broadcasts'>[number];
export type Template = Data<'GET /api/v1/summary-templates'>[number];
/** What the engines here serve (GET /api/v1/languages). */
export type LanguageOffer = Data<'GET /api/v1/languages'>;

export interface Sentence {
  sid: number;
  origin: string;
  translations: Record<string, string> | null;
  start_time: string;
  speaker_id: string;
  speaker_label?: string;
}

export interface Plan {
  mode: string;
  plan: { name: string; expired_at: string | null } | null;
  available_credit?: number;
  features?: Array<{ slug: string; name: string; included: boolean }> | { all: boolean };
  oneoff_features?: Array<{ slug: string; name: string; included: boolean }>;
  limits?: Record<string, number | string | null>;
  expired_at?: string | null;
}
