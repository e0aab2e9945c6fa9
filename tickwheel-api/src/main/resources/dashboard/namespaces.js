// The namespaces a token of every namespace picks from (GET /api/namespaces): the filters of the jobs, history and
// audit pages, and the namespace of a new job or token. Read once per login, at start in parallel with who the token
// is (login.js), so that no page waits for them; a namespace made over the API since shows after a reload.
'use strict';

import { el } from './dom.js';
import { call, token } from './api.js';

let names = null; // the promise of the sorted names; null: not asked yet, or the last answer was a refusal

/** The names of the namespaces, sorted; [] when they cannot be read (the select then offers only what it shows). */
export function namespaceNames() {
  if (!names) {
    // A refusal here is not a logout: the 401 of the page's own read is (options.token keeps it to this caller).
    names = call('GET', '/api/namespaces', undefined, { token: token() }).then((reply) => {
      if (reply.ok) return reply.body.items.map((n) => n.name).sort();
      names = null;
      return [];
    });
  }
  return names;
}

/** Forgets the names read: another token may see others. */
export function forgetNamespaces() {
  names = null;
}

/**
 * A select of names with selected chosen (added if the list lacks it); blankLabel, if given, is a first option of
 * value '' ("every namespace").
 */
export function namespaceSelect(attrs, names, selected, blankLabel) {
  const options = selected && !names.includes(selected) ? [...names, selected] : names;
  return el('select', attrs,
    blankLabel ? el('option', { value: '' }, blankLabel) : null,
    options.map((name) => el('option', { value: name, selected: name === selected }, name)));
}
