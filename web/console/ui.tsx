/** Small pieces every screen uses: error notes, formatting, a loader hook, language pickers. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { languageName } from './languages';

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const text = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string | null }).code;
  return (
    <p class="error" role="alert">
      {code ? <code>{code}</code> : null} {text}
    </p>
  );
}

/** Loads with `load()` on mount and when `deps` change; `reload()` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const reload = useCallback(async () => {
    setLoading(true);
    try {
      setValue(await load());
      setError(null);
    } catch (err) {
      setError(err);
    } finally {
      setLoading(false);
    }
  }, deps);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { value, error, loading, reload, setValue };
}

/**
 * A form's action: `busy` while `run(work)` runs, and the `error` it threw (cleared when it
 * starts again). `setError` is there for a check made before running.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

export const formatDate = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
export const formatPoints = (n: number | null | undefined) => (n === null || n === undefined ? '—' : n.toFixed(2));

/** Seconds -> m:ss (or h:mm:ss). */
export function clock(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** "mm:ss" (minutes may pass 59) -> seconds. */
export const seconds = (mmss: string) => {
  const [m, s] = mmss.split(':').map(Number);
  return (m ?? 0) * 60 + (s ?? 0);
};

/** A speaker's display name: a bare number from diarization reads "Speaker 2". */
export const speakerName = (label: string) => (/^\d+$/.test(label) ? `Speaker ${label}` : label);

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge status-${/^[a-z_]+$/.test(status) ? status : 'other'}`}>{status}</span>;
}

/** Checkboxes for picking several languages (a long list scrolls; `empty` says why there is none). */
export function LanguageChecks(props: {
  legend: string;
  options: Array<[string, string]>;
  value: string[];
  onChange: (codes: string[]) => void;
  disabled?: boolean;
  id?: string;
  empty?: string;
}) {
  return (
    <fieldset class={`checks${props.options.length > 12 ? ' scroll' : ''}`} disabled={props.disabled} id={props.id}>
      <legend>{props.legend}</legend>
      {props.options.length === 0 && props.empty ? <span class="muted">{props.empty}</span> : null}
      {props.options.map(([code, name]) => (
        <label key={code}>
          <input
            type="checkbox"
            value={code}
            checked={props.value.includes(code)}
            onChange={(e) => {
              const on = (e.currentTarget as HTMLInputElement).checked;
              props.onChange(on ? [...props.value, code] : props.value.filter((c) => c !== code));
            }}
          />
          {name}
        </label>
      ))}
    </fieldset>
  );
}

/** A select of languages (with the current value kept even when it is not in the list). */
export function LanguageSelect(props: {
  label: string;
  options: Array<[string, string]>;
  value: string;
  onChange: (code: string) => void;
  id: string;
  disabled?: boolean;
  empty?: string;
}) {
  const options =
    props.options.some(([c]) => c === props.value) || !props.value
      ? props.options
      : [[props.value, languageName(props.value)], ...props.options];
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select
        id={props.id}
        value={props.value}
        disabled={props.disabled}
        onChange={(e) => props.onChange((e.currentTarget as HTMLSelectElement).value)}
      >
        {props.empty !== undefined ? <option value="">{props.empty}</option> : null}
        {options.map(([code, name]) => (
          <option key={code} value={code}>
            {name} ({code})
          </option>
        ))}
      </select>
    </div>
  );
}

/** A checkbox with its label after it (class "check"). */
export function Check(props: { label: string; checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <label class="check">
      <input type="checkbox" checked={props.checked} onChange={(e) => props.onChange((e.currentTarget as HTMLInputElement).checked)} />{' '}
      {props.label}
    </label>
  );
}

/** A labelled three-row textarea; `children` go under it (a checkbox that qualifies it). */
export function TextareaField(props: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  maxLength?: number;
  children?: ComponentChildren;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <textarea
        id={props.id}
        maxLength={props.maxLength}
        rows={3}
        value={props.value}
        onInput={(e) => props.onInput((e.currentTarget as HTMLTextAreaElement).value)}
      />
      {props.children}
    </div>
  );
}

/** A table that scrolls sideways on a narrow screen; `columns` are its header cells (scope col). */
export function Table(props: { columns: ComponentChildren[]; children: ComponentChildren; class?: string }) {
  return (
    <div class="table-wrap">
      <table class={props.class}>
        <thead>
          <tr>
            {props.columns.map((c, i) => (
              <th key={i} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

export function Card(props: { title: string; children: ComponentChildren; actions?: ComponentChildren; id?: string }) {
  return (
    <section class="card" id={props.id} aria-labelledby={props.id ? `${props.id}-title` : undefined}>
      <div class="card-head">
        <h2 id={props.id ? `${props.id}-title` : undefined}>{props.title}</h2>
        {props.actions}
      </div>
      {props.children}
    </section>
  );
}

/** Saves a Blob under a file name (the browser's download). */
export function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
