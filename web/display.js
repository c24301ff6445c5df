// Display settings of the broadcast pages (the viewer page and the OBS overlay): text size,
// contrast and how many captions show. Each page keeps a viewer's choice in this browser's
// localStorage under its own key, so it holds on every broadcast and every visit; storage
// that is blocked just means nothing is remembered.

/** The stored settings of `key` over `defaults` (unknown or out-of-range values are ignored). */
export function loadDisplay(key, defaults, allowed) {
  let stored = {};
  try {
    stored = JSON.parse(localStorage.getItem(key) ?? '{}') ?? {};
  } catch {
    /* storage blocked or damaged: the defaults */
  }
  const out = { ...defaults };
  for (const [name, values] of Object.entries(allowed)) {
    const v = stored[name];
    if (values.includes(v)) out[name] = v;
  }
  return out;
}

export function saveDisplay(key, settings) {
  try {
    localStorage.setItem(key, JSON.stringify(settings));
  } catch {
    /* not kept */
  }
}

export function forgetDisplay(key) {
  try {
    localStorage.removeItem(key);
  } catch {
    /* nothing kept */
  }
}

/**
 * Fills each `<select>` of `form` named after a setting with the setting's choices
 * ([value, label] pairs), shows the current values, and calls `onChange(settings)` with the
 * new settings when one changes (values are numbers where the choices are).
 */
export function bindDisplayControls(form, settings, choices, onChange) {
  for (const [name, options] of Object.entries(choices)) {
    const select = form.elements.namedItem(name);
    if (!select) continue;
    select.replaceChildren(...options.map(([value, label]) => new Option(label, String(value))));
    select.value = String(settings[name]);
    select.addEventListener('change', () => {
      const raw = select.value;
      const value = typeof options[0][0] === 'number' ? Number(raw) : raw;
      onChange({ ...settings, [name]: value });
    });
  }
  return {
    show(next) {
      settings = next;
      for (const name of Object.keys(choices)) {
        const select = form.elements.namedItem(name);
        if (select) select.value = String(next[name]);
      }
    },
  };
}

/** Hides all but the last `count` children of `list` (0: all show). */
export function keepLast(list, count) {
  const children = [...list.children];
  children.forEach((child, i) => {
    child.hidden = count > 0 && i < children.length - count;
  });
}
