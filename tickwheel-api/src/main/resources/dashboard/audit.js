// #/audit?actor=&action=&target=&namespace=&from=&to= (ADMIN): the audit trail, newest first, one row per change made
// through the API (the console's actions are API calls, so they are there too), filtered as the hash says; "more"
// appends the next page (the server's cursor). A token of one namespace sees its namespace's entries only.
'use strict';

import { el, fill, timeEl, toLocalInput, fromLocalInput } from './dom.js';
import { call, messageOf, errorField, withQuery } from './api.js';
import { go } from './router.js';
import { ofEveryNamespace } from './session.js';
import { namespaceNames, namespaceSelect } from './namespaces.js';

const PAGE_SIZE = 50;
const FILTERS = ['actor', 'action', 'target', 'namespace', 'from', 'to'];
const COLUMNS = ['at', 'actor', 'namespace', 'action', 'target', 'status', 'changes'];

/** A value, or a muted dash for none. */
function orDash(value) {
  return value == null ? el('span', { class: 'muted' }, '—') : value;
}

function entryRow(entry) {
  return el('tr', { 'data-audit-id': entry.id },
    el('td', {}, timeEl(entry.at)),
    el('td', { class: 'audit-actor' }, entry.actor),
    el('td', { class: 'audit-namespace' }, orDash(entry.namespace)),
    el('td', { class: 'audit-action' }, entry.action),
    el('td', { class: 'audit-target' }, orDash(entry.target)),
    el('td', { class: 'audit-status' + (entry.status >= 400 ? ' status-FAILED' : '') }, entry.status),
    el('td', { class: 'changes' }, entry.changes == null ? '' : el('code', {}, JSON.stringify(entry.changes))));
}

/** namespaces: the names of the namespace filter, or null for none (a token of one namespace). */
function filterForm(query, namespaces) {
  const text = (name, placeholder, size) => el('input', { name, value: query[name] || '', size, placeholder,
    autocomplete: 'off' });
  const inputs = {
    actor: text('actor', 'token name', 14),
    action: text('action', 'contains, e.g. /api/jobs', 20),
    target: text('target', 'exactly, e.g. job 123', 16),
    namespace: namespaces && namespaceSelect({ name: 'namespace' }, namespaces, query.namespace || '',
      'every namespace'),
    from: el('input', { name: 'from', type: 'datetime-local', step: 1, value: toLocalInput(query.from) }),
    to: el('input', { name: 'to', type: 'datetime-local', step: 1, value: toLocalInput(query.to) }),
  };
  const errors = Object.fromEntries(FILTERS.map((f) => [f, el('span', { class: 'field-error', 'data-error-for': f })]));
  const form = el('form', { id: 'audit-filters', class: 'filters' },
    FILTERS.filter((f) => inputs[f]).map((f) => el('label', {}, f + ' ', inputs[f], errors[f])),
    el('button', { type: 'submit', class: 'primary', id: 'apply-filters' }, 'Apply'),
    el('a', { class: 'button', href: '#/audit' }, 'Clear'),
    el('span', { class: 'muted' }, 'times in your browser\'s zone'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const applied = {};
    for (const f of FILTERS) {
      if (!inputs[f]) continue;
      applied[f] = f === 'from' || f === 'to' ? fromLocalInput(inputs[f].value) : inputs[f].value.trim();
    }
    go(withQuery('#/audit', applied));
  });
  return { form, errors };
}

export async function renderList(ctx, query) {
  const names = ofEveryNamespace() ? await namespaceNames() : null;
  if (!ctx.alive()) return;
  const filters = Object.fromEntries(FILTERS.map((f) => [f, query[f] || '']));
  const { form, errors } = filterForm(query, names);
  const tbody = el('tbody');
  const summary = el('span', { class: 'muted' });
  const paging = el('div', { class: 'paging' });
  const problem = el('p', { class: 'message error', hidden: true });
  fill(ctx.root,
    el('div', { class: 'toolbar' }, el('h2', {}, 'Audit trail'),
      el('span', { class: 'muted' }, 'every change made through the API, newest first')),
    form, problem,
    el('table', { id: 'audit' }, el('thead', {}, el('tr', {}, COLUMNS.map((h) => el('th', {}, h)))), tbody),
    el('div', { class: 'table-footer' }, summary, paging));

  let shown = 0;
  async function load(cursor) {
    const reply = await call('GET', withQuery('/api/audit', { ...filters, cursor, limit: PAGE_SIZE }));
    if (!ctx.alive()) return;
    if (!reply.ok) {
      const field = errorField(reply);
      if (field && errors[field]) errors[field].textContent = messageOf(reply);
      else {
        problem.textContent = messageOf(reply);
        problem.hidden = false;
      }
      fill(paging);
      return;
    }
    const page = reply.body;
    if (!cursor) fill(tbody);
    tbody.append(...page.items.map(entryRow));
    shown += page.items.length;
    if (!shown) fill(tbody, el('tr', { class: 'empty' }, el('td', { colspan: COLUMNS.length }, 'No entries match.')));
    summary.textContent = shown + (shown === 1 ? ' entry' : ' entries')
      + (page.nextCursor ? ', older ones after "more"' : '');
    fill(paging, page.nextCursor ? el('button', { type: 'button', id: 'audit-more', onclick: async (e) => {
      e.currentTarget.disabled = true;
      await load(page.nextCursor);
    } }, 'more') : null);
  }
  await load(null);
  ctx.ready();
}
