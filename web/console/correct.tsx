/**
 * Editing a sentence in place (docs/corrections.md), shared by the task view (REST) and the
 * live view (the session's correct_sentence): an Edit button beside the sentence opens a text
 * field with its text; Enter or Save sends the correction, Escape or Cancel closes it. Undo is
 * offered once the sentence was corrected. The new text comes back from the server (the
 * answer, or the live `sentence_corrected` event), so every screen shows the same text.
 */
import { useState } from 'preact/hooks';
import { parley } from './api';
import { ErrorNote, useAction } from './ui';

export interface SentenceEdits {
  correct(sid: number, text: string): Promise<void>;
  undo(sid: number): Promise<void>;
}

export function SentenceEditor(props: { sid: number; text: string; corrected: boolean; edits: SentenceEdits }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(props.text);
  const { busy, error, run } = useAction();
  const id = `correct-${props.sid}`;
  if (!editing) {
    return (
      <span class="sentence-edit">
        <button
          type="button"
          class="link"
          aria-label={`Correct sentence ${props.sid}`}
          onClick={() => {
            setText(props.text);
            setEditing(true);
          }}
        >
          Edit
        </button>
        {props.corrected ? (
          <button
            type="button"
            class="link"
            aria-label={`Undo the correction of sentence ${props.sid}`}
            disabled={busy}
            onClick={() => run(() => props.edits.undo(props.sid))}
          >
            Undo
          </button>
        ) : null}
        <ErrorNote error={error} />
      </span>
    );
  }
  return (
    <form
      class="inline sentence-edit"
      onSubmit={(e) => {
        e.preventDefault();
        void run(async () => {
          await props.edits.correct(props.sid, text);
          setEditing(false);
        });
      }}
    >
      <label class="sr-only" for={id}>
        Corrected text of sentence {props.sid}
      </label>
      <input
        id={id}
        value={text}
        maxLength={2000}
        ref={(el) => el?.focus()}
        onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
        onKeyDown={(e) => e.key === 'Escape' && setEditing(false)}
      />
      <button type="submit" disabled={busy}>
        Save
      </button>
      <button type="button" onClick={() => setEditing(false)}>
        Cancel
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

/**
 * The task view's edits over REST: the answer's text and translations replace the sentence
 * shown; a sentence keeps its Undo while it has a correction left to undo.
 */
export function sentenceEdits(
  taskId: string,
  patch: (sid: number, change: { origin: string; translations: Record<string, string> }) => void,
  setCorrected: (update: (cur: ReadonlySet<number>) => ReadonlySet<number>) => void,
  note: (text: string) => void,
): SentenceEdits {
  const mark = (sid: number, on: boolean) =>
    setCorrected((cur) => {
      const next = new Set(cur);
      if (on) next.add(sid);
      else next.delete(sid);
      return next;
    });
  return {
    async correct(sid, text) {
      const r = await parley.tasks.correctSentence(taskId, sid, { text });
      patch(sid, { origin: r.text, translations: r.translations });
      mark(sid, true);
      note(`Sentence ${sid} corrected (revision ${r.revision}).`);
    },
    async undo(sid) {
      const r = await parley.tasks.undoCorrection(taskId, sid);
      patch(sid, { origin: r.text, translations: r.translations });
      const history = await parley.tasks.sentenceRevisions(taskId, sid);
      mark(sid, history.revisions.at(-1)?.based_on !== null);
      note(`Sentence ${sid}: correction undone.`);
    },
  };
}
