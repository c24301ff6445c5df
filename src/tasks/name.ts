/**
 * A task's name (spec: 1-60 characters after trimming, one line of display text): the one
 * place for this rule. REST rename, live sessions (start `name`, `set_name`) and imports (a
 * title made from the file name) all ask here; the task service checks it on every write.
 */
export const TASK_NAME_MAX = 60;

// biome-ignore lint/suspicious/noControlCharactersInRegex: names are one line of display text
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]/;

/** Why a trimmed `name` cannot be a task's name ("must not be empty", ...), or null. */
export function taskNameProblem(name: string): string | null {
  if (name.length === 0) return 'must not be empty';
  if ([...name].length > TASK_NAME_MAX) return `must be at most ${TASK_NAME_MAX} characters`;
  if (CONTROL.test(name)) return 'must not contain control characters or line breaks';
  return null;
}

/** A name made from other text (a file name): control characters and line breaks become spaces, cut at the limit. */
export function fitTaskName(text: string, fallback: string): string {
  const cleaned = text.replace(new RegExp(CONTROL.source, 'g'), ' ').trim();
  return [...(cleaned || fallback)].slice(0, TASK_NAME_MAX).join('');
}
