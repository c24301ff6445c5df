// Renders /asyncapi.json (AsyncAPI 3) as plain HTML: actions with fields and errors, then events.
const el = (tag, attrs = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
};

function typeOf(schema) {
  if (!schema) return '';
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.type === 'array') return `${typeOf(schema.items)}[]`;
  return schema.type ?? 'any';
}

function fieldsTable(payload) {
  const data = payload?.properties?.data;
  const props = Object.entries(data?.properties ?? {}).filter(([name]) => name !== 'action');
  if (props.length === 0) return el('p', {}, data?.description ?? 'No fields.');
  const required = new Set(data.required ?? []);
  const body = props.map(([name, s]) =>
    el(
      'tr',
      {},
      el('td', {}, name),
      el('td', {}, typeOf(s)),
      el('td', {}, required.has(name) ? 'yes' : ''),
      el('td', {}, s.description ?? ''),
    ),
  );
  return el(
    'table',
    {},
    el('thead', {}, el('tr', {}, el('th', {}, 'field'), el('th', {}, 'type'), el('th', {}, 'required'), el('th', {}, 'meaning'))),
    el('tbody', {}, ...body),
  );
}

function errorsTable(errors) {
  if (!errors?.length) return el('span');
  const rows = errors.map((e) =>
    el('tr', {}, el('td', {}, e.code), el('td', { class: `sev-${e.severity}` }, e.severity), el('td', {}, e.message)),
  );
  return el(
    'table',
    {},
    el('thead', {}, el('tr', {}, el('th', {}, 'error_code'), el('th', {}, 'severity'), el('th', {}, 'message'))),
    el('tbody', {}, ...rows),
  );
}

function section(title, messages) {
  const out = [el('h2', {}, title), el('nav', {}, ...messages.map((m) => el('a', { href: `#${m.key}` }, m.name)))];
  for (const m of messages) {
    out.push(el('h3', { id: m.key }, m.name));
    out.push(el('p', {}, m.summary ?? ''));
    if (m['x-since']) out.push(el('p', {}, `Since v${m['x-since']}.`));
    if (m['x-replies']) out.push(el('p', {}, `Answered with: ${m['x-replies'].join(', ')}.`));
    out.push(fieldsTable(m.payload));
    if (m['x-errors']?.length) out.push(el('p', {}, 'Errors:'), errorsTable(m['x-errors']));
  }
  return out;
}

const doc = await (await fetch('/asyncapi.json')).json();
document.getElementById('title').textContent = `${doc.info.title} (v${doc.info.version})`;
document.getElementById('intro').textContent = doc.info.description;
const all = Object.entries(doc.channels.live.messages).map(([key, m]) => ({ key, ...m }));
const root = document.getElementById('doc');
root.append(
  ...section(
    'Client actions',
    all.filter((m) => m.key.startsWith('action.')),
  ),
);
root.append(
  ...section(
    'Server events',
    all.filter((m) => m.key.startsWith('event.')),
  ),
);
root.append(
  ...section(
    'Keep-alive and errors',
    all.filter((m) => !m.key.includes('.')),
  ),
);
// The broadcast viewers' caption stream (server-sent events), documented in the same file.
const viewer = doc.channels.viewer;
if (viewer) {
  root.append(
    ...section(
      `Broadcast viewer stream (SSE, GET ${viewer.address})`,
      Object.entries(viewer.messages).map(([key, m]) => ({ key, ...m })),
    ),
  );
}
