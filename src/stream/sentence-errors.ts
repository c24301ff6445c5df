/**
 * A sentence-level error on the session stream (a translation that failed for one sentence):
 * for the audiences beyond the owner (broadcast viewers). The owner's client gets the same
 * error as an error message of its own, never from the stream (wire.ts forOwner), so this
 * event lives apart from the events every audience, the owner included, receives as they are
 * (events.ts). Never retained for late joiners (events.ts isTransient).
 */

export interface SentenceErrorData {
  sid: number;
  error_code: string;
  severity: string;
  message: string;
  context: string;
  translation_language: string | null;
}

export interface SentenceErrorEvent {
  event: 'sentence_error';
  data: SentenceErrorData;
}

/** The stream event of an error about sentence `sid` (its translation_language, when it names one). */
export function sentenceError(
  err: { code: string; severity: string; message: string; context: string; details?: Record<string, unknown> | null },
  sid: number,
): SentenceErrorEvent {
  const language = err.details?.translation_language;
  return {
    event: 'sentence_error',
    data: {
      sid,
      error_code: err.code,
      severity: err.severity,
      message: err.message,
      context: err.context,
      translation_language: typeof language === 'string' ? language : null,
    },
  };
}
