import { allSettings } from '../../config.js';

/** The README's configuration table, generated from the settings sections. */
export function renderConfigTable(): string {
  const rows = allSettings().map(
    (s) =>
      `| \`${s.env}\` | ${s.defaultText === undefined ? '(unset)' : `\`${s.defaultText}\``} | ${s.description.replace(/\|/g, '\\|')} |`,
  );
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

const START = '<!-- config:start -->';
const END = '<!-- config:end -->';

export function withConfigTable(readme: string): string {
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error('README.md has no config markers');
  return `${readme.slice(0, a + START.length)}\n${renderConfigTable()}\n${readme.slice(b)}`;
}
