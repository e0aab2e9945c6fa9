// Logging in: at start the console asks GET /api/whoami with the tab's token. A server without tokens answers
// "anonymous" (an ADMIN of every namespace) and nothing asks for a login. Any 401 (no token, or a wrong, revoked or
// expired one) draws the login state instead of every view (router.setGate) until a token the server takes is typed;
// then the header shows "name · role · namespace" with "log out", the navigation only the pages the token may open,
// and the view the address names is drawn again.
'use strict';

import { el, fill } from './dom.js';
import { call, messageOf, token, setToken, onUnauthorized } from './api.js';
import { setGate } from './router.js';
import { setCaller, callerText, mayAdmin, ofEveryNamespace } from './session.js';
import { namespaceNames, forgetNamespaces } from './namespaces.js';

const session = document.getElementById('session');
const nav = document.querySelector('header nav');

let loggedOut = false; // the login state is shown

/** Shows the navigation (or none, logged out); a link with data-needs only to a caller who has what it names. */
function showNavigation(shown) {
  nav.hidden = !shown;
  for (const link of nav.querySelectorAll('a[data-needs]')) {
    const needs = link.dataset.needs.split(' ');
    link.hidden = (needs.includes('admin') && !mayAdmin())
      || (needs.includes('every-namespace') && !ofEveryNamespace());
  }
}

function enter(who) {
  loggedOut = false;
  setCaller(who);
  fill(session, el('span', { id: 'whoami', title: 'the token this tab acts with' }, callerText(who)),
    token() ? el('button', { type: 'button', id: 'logout', onclick: logOut }, 'log out') : null);
  showNavigation(true);
}

/** Forgets the token and draws the login state; why (the server's refusal), if given, is shown on it. */
function showLogin(why) {
  loggedOut = true;
  setToken('');
  forgetNamespaces();
  setCaller(null);
  fill(session);
  showNavigation(false);
  setGate((ctx) => renderLogin(ctx, why));
}

function logOut() {
  showLogin(null);
}

function renderLogin(ctx, why) {
  const input = el('input', { id: 'login-token', name: 'token', type: 'password', autocomplete: 'off', size: 48,
    placeholder: 'the token\'s secret' });
  const problem = el('p', { id: 'login-error', class: 'message error', role: 'alert', hidden: !why }, why || '');
  const submit = el('button', { type: 'submit', class: 'primary', id: 'login-submit' }, 'Log in');
  const form = el('form', { id: 'login-form', class: 'login' },
    el('h2', {}, 'Log in'),
    el('p', {}, 'This server needs a token. It is kept for this browser tab only, and sent with every call.'),
    el('label', { for: 'login-token' }, 'token '), input, ' ', submit, problem);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const typed = input.value.trim();
    if (!typed) {
      fill(problem, 'type a token');
      problem.hidden = false;
      return;
    }
    submit.disabled = true;
    const reply = await call('GET', '/api/whoami', undefined, { token: typed });
    submit.disabled = false;
    if (!reply.ok) {
      fill(problem, messageOf(reply));
      problem.hidden = false;
      input.select();
      return;
    }
    setToken(typed);
    enter(reply.body);
    setGate(null); // draws the view the address names
  });
  fill(ctx.root, form);
  ctx.ready();
  input.focus();
}

/**
 * Asks the server who the tab's token is, before the first view is drawn. Anything but an answer or a 401 (a server
 * that cannot be reached, one without /api/whoami) shows every page: the views say what fails.
 */
export async function begin() {
  onUnauthorized((reply) => {
    if (!loggedOut) showLogin(token() ? messageOf(reply) : null);
  });
  const kept = token();
  namespaceNames(); // asked now, beside whoami: the views that offer them find them read
  const reply = await call('GET', '/api/whoami', undefined, { token: kept });
  if (reply.ok) enter(reply.body);
  else if (reply.status === 401) showLogin(kept ? messageOf(reply) : null);
  else showNavigation(true);
}
