/**
 * The console's only door to the server: the typed client of src/client/ (REST, SSE read
 * with fetch so the key stays in a header, the live WebSocket with its ticket) on this
 * page's origin, with the signed-in key; and the shapes the screens use.
 */
import { ParleyClient } from '../../src/client/index.js';

export type { ImportInput, LiveEvent, LiveSession } from '../../src/client/index.js';
export { ParleyError } from '../../src/client/index.js';

/** The one client of the page ({base_url} and {realtime_url} are both this origin). */
export const parley = new ParleyClient({ baseUrl: location.origin });

/** The signed-in key (empty: signed out). */
export const setKey = (key: string) => parley.setApiKey(key || undefined);

// --- Shapes the screens use (the interface's resources) -------------------------------------

export interface Task {
  task_id: string;
  title: string;
  type: string;
  type_source: string;
  duration_ms: number;
  duration_formatted: string;
  transcription_languages: string[] | null;
  translation_languages: string[] | null;
  created_at: string;
  processing_status: string;
  is_pinned: boolean;
  is_unread: boolean;
  summary_mode: string | null;
  summary_template: string | null;
  summary_language: string | null;
}

export interface TaskDetail extends Task {
  recognition_mode: string | null;
  has_audio: boolean;
}

export interface Sentence {
  sid: number;
  origin: string;
  translations: Record<string, string> | null;
  start_time: string;
  speaker_id: string;
  speaker_label?: string;
}

export interface ImportItem {
  import_id: string;
  status: string;
  stage: string | null;
  progress: number;
  message: string | null;
  original_filename: string;
  file_size: string;
  task_id: string | null;
  created_at: string;
  error_code: string | null;
  error_message: string | null;
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

export interface UsageRecord {
  task_id: string | null;
  type: string;
  points: number;
  in_progress: boolean;
  refunded: boolean;
  refund_reason: string | null;
  occurred_at: string | null;
  ended_at: string | null;
}

export interface Broadcast {
  id: string;
  token: string;
  name: string | null;
  status: string;
  phase: string | null;
  is_live: boolean;
  access_type: string;
  transcription_languages: string[];
  translation_languages: string[];
  max_viewers: number;
  viewer_count: number;
  queue_count: number;
  peak_viewers: number;
  total_viewers: number;
  task_id: string | null;
  created_at: string;
}

export interface Template {
  slug: string;
  name: string;
  description: string | null;
  category: string;
}
