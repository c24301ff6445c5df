import { allSettings } from './config.js';

/** The configuration table of docs/configuration.md, generated from the settings sections. */
export function renderConfigTable(): string {
  const rows = allSettings().map(
    (s) =>
      `| \`${s.env}\` | ${s.defaultText === undefined ? '(unset)' : `\`${s.defaultText}\``} | ${s.description.replace(/\|/g, '\\|')} |`,
  );
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

const START = '<!-- config:start -->';
const END = '<!-- config:end -->';

export function withConfigTable(doc: string): string {
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error('docs/configuration.md has no config markers');
  return `${doc.slice(0, a + START.length)}\n${renderConfigTable()}\n${doc.slice(b)}`;
}
