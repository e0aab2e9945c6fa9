// #/tokens (ADMIN): the server's API tokens, a form to create one, and revoke after a confirmation. A new token's
// secret is in the creation's answer only (the server keeps its hash), so it is shown once, with a warning, until the
// operator leaves the page. A token of one namespace sees, and creates, tokens of that namespace only.
'use strict';

import { el, fill, timeEl, fromLocalInput } from './dom.js';
import { call, read, messageOf, errorField } from './api.js';
import { notify } from './router.js';
import { caller, ofEveryNamespace } from './session.js';
import { namespaceNames, namespaceSelect } from './namespaces.js';
import { deleteButton } from './delete-button.js';

const ROLES = ['READ', 'OPERATE', 'ADMIN'];
const COLUMNS = ['name', 'namespace', 'role', 'created', 'expires', 'last used', 'state', ''];

function tokenPath(id) {
  return '/api/tokens/' + encodeURIComponent(id);
}

/** "active", "revoked" or "expired": the server's active flag, and why not. */
function stateOf(token) {
  if (token.active) return 'active';
  return token.revokedAt ? 'revoked' : 'expired';
}

function namespaceText(namespace) {
  return namespace == null ? el('span', { class: 'muted' }, 'every namespace') : namespace;
}

/** The row of one token; revoke (active ones) asks first, then onRevoked(). */
function tokenRow(token, onRevoked) {
  const state = stateOf(token);
  const revoke = state !== 'active' ? null : deleteButton('revoke', 'revoke "' + token.name + '"?', tokenPath(token.id),
    () => {
      notify('token "' + token.name + '" revoked: it is refused from now on', 'ok');
      onRevoked();
    });
  return el('tr', { 'data-token-id': token.id, class: 'token-' + state },
    el('td', { class: 'token-name' }, token.name),
    el('td', { class: 'token-namespace' }, namespaceText(token.namespace)),
    el('td', { class: 'token-role' }, token.role),
    el('td', {}, timeEl(token.createdAt)),
    el('td', { class: 'token-expires' }, token.expiresAt ? timeEl(token.expiresAt)
      : el('span', { class: 'muted' }, 'never')),
    el('td', { class: 'token-last-used' }, timeEl(token.lastUsedAt)),
    el('td', { class: 'token-state ' + state, title: token.revokedAt ? 'revoked ' + token.revokedAt : null }, state),
    el('td', { class: 'actions' }, revoke));
}

/** The secret of a token just created, shown this once. */
function secretBox(created) {
  const secret = el('code', { id: 'new-token-secret' }, created.secret);
  const copied = el('span', { class: 'muted', role: 'status' });
  const copy = el('button', { type: 'button', id: 'copy-secret', onclick: async () => {
    try {
      await navigator.clipboard.writeText(created.secret);
      copied.textContent = 'copied';
    } catch (e) {
      copied.textContent = 'the browser did not allow it: select the secret and copy it';
    }
  } }, 'copy');
  return el('div', { class: 'secret-box', id: 'new-token' },
    el('p', {}, 'Token "', created.name, '" created. Its secret:'),
    el('p', {}, secret, ' ', copy, ' ', copied),
    el('p', { class: 'warning' }, 'Copy it now: it will not be shown again (the server keeps only its hash).'));
}

/** namespaces: the names to pick from (a token of every namespace), or null: the caller's own namespace. */
function createForm(namespaces, onCreated) {
  const name = el('input', { name: 'name', maxlength: 100, size: 24, autocomplete: 'off', required: true,
    placeholder: 'e.g. ci-deploy' });
  const role = el('select', { name: 'role' }, ROLES.map((r) => el('option', { value: r }, r)));
  const namespace = namespaces ? namespaceSelect({ name: 'namespace' }, namespaces, '', 'every namespace')
    : el('span', { class: 'own-namespace' }, caller().namespace);
  const expires = el('input', { name: 'expiresAt', type: 'datetime-local', step: 1 });
  const errors = Object.fromEntries(['name', 'role', 'namespace', 'expiresAt'].map((f) =>
    [f, el('span', { class: 'field-error', 'data-error-for': f })]));
  const problem = el('p', { class: 'message error', hidden: true });
  const submit = el('button', { type: 'submit', class: 'primary', id: 'create-token' }, 'Create token');
  const form = el('form', { id: 'token-form', class: 'filters' },
    el('label', {}, 'name ', name, errors.name),
    el('label', {}, 'role ', role, errors.role),
    el('label', {}, 'namespace ', namespace, errors.namespace),
    el('label', {}, 'expires (optional) ', expires, errors.expiresAt),
    submit,
    el('span', { class: 'muted' }, 'the expiry is in your browser\'s zone; empty: never'),
    problem);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    Object.values(errors).forEach((e) => { e.textContent = ''; });
    problem.hidden = true;
    const body = { name: name.value.trim(), role: role.value };
    if (namespaces) {
      if (namespace.value) body.namespace = namespace.value;
    } else {
      body.namespace = caller().namespace;
    }
    if (expires.value) body.expiresAt = fromLocalInput(expires.value) || expires.value;
    submit.disabled = true;
    const reply = await call('POST', '/api/tokens', body);
    submit.disabled = false;
    if (reply.ok) {
      form.reset();
      onCreated(reply.body);
      return;
    }
    const field = errorField(reply);
    if (field && errors[field]) errors[field].textContent = messageOf(reply);
    else {
      problem.textContent = messageOf(reply);
      problem.hidden = false;
    }
  });
  return form;
}

export async function renderList(ctx) {
  const names = ofEveryNamespace() ? await namespaceNames() : null;
  if (!ctx.alive()) return;
  const tbody = el('tbody');
  const created = el('div');
  async function load() {
    const page = await read('/api/tokens');
    if (!ctx.alive()) return;
    fill(tbody, page.items.length ? page.items.map((t) => tokenRow(t, () => load().catch((e) => ctx.fail(e))))
      : el('tr', { class: 'empty' }, el('td', { colspan: COLUMNS.length }, 'No tokens yet.')));
  }
  fill(ctx.root,
    el('div', { class: 'toolbar' }, el('h2', {}, 'Tokens'),
      el('span', { class: 'muted' }, 'READ reads; OPERATE also runs, cancels, reruns, enables and disables;'
        + ' ADMIN also creates, edits and deletes jobs, and manages tokens')),
    createForm(names, (token) => {
      fill(created, secretBox(token));
      notify('token "' + token.name + '" created', 'ok');
      load().catch((e) => ctx.fail(e));
    }),
    created,
    el('table', { id: 'tokens' }, el('thead', {}, el('tr', {}, COLUMNS.map((h) => el('th', {}, h)))), tbody));
  await load();
  ctx.ready();
}
