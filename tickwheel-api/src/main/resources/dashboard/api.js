// The console's HTTP client: JSON in and out, the bearer token on every call, and what a 400 names. A 401 is handed to
// whoever listens (login.js, which shows the login state); a 403 is hinted at in the header.
'use strict';

const TOKEN_KEY = 'tickwheel-token';

const tokenHint = document.getElementById('token-hint');
let unauthorized = () => {};

/** The token of this browser tab (sessionStorage), or '' for none. */
export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

/** Keeps the token for this tab; '' or null forgets it. */
export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
  jobNames.clear(); // another token may see other jobs
}

/** handler({status, ok, body}) runs on every 401 answer of call() (not on a login attempt's). */
export function onUnauthorized(handler) {
  unauthorized = handler;
}

function showTokenHint(text) {
  tokenHint.textContent = text || '';
  tokenHint.hidden = !text;
}

/**
 * Where the API is: the directory of this page, "/" on the standalone server, "/tickwheel/" (say) where an application
 * mounts the API and console under a path. Every call's absolute API path is taken below it.
 */
const BASE = new URL('./', window.location.href).pathname;

/** "/api/jobs" -> "/tickwheel/api/jobs" under a mount, unchanged at the root. */
export function url(path) {
  return BASE + path.replace(/^\//, '');
}

/** The Authorization header of the tab's token (or of the one given), {} for none. */
export function authHeaders(given = token()) {
  return given ? { Authorization: 'Bearer ' + given } : {};
}

/**
 * Calls the API; never throws. Answers {status, ok, body}: body is the parsed JSON, or {message} for a body that is
 * not JSON, or null for none. status 0 means the server could not be reached. options.token sends that token instead
 * of the tab's and leaves the 401 to the caller (a login attempt).
 */
export async function call(method, path, body, options = {}) {
  const trying = options.token !== undefined;
  const headers = authHeaders(trying ? options.token : token());
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(url(path), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    return { status: 0, ok: false, body: { error: 'unreachable', message: 'the server did not answer: ' + e.message } };
  }
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch (e) {
    parsed = { message: text };
  }
  const reply = { status: response.status, ok: response.ok, body: parsed };
  if (response.status === 403) {
    showTokenHint('this token\'s role or namespace does not allow that');
  } else if (response.ok) {
    showTokenHint(null);
  }
  if (response.status === 401 && !trying) unauthorized(reply);
  return reply;
}

/** GET that throws on anything but 2xx, with the server's message: for views that cannot render without it. */
export async function read(path) {
  const reply = await call('GET', path);
  if (!reply.ok) throw new Error(messageOf(reply));
  return reply.body;
}

/** The text to show for a failed reply. */
export function messageOf(reply) {
  return reply.body && reply.body.message ? reply.body.message : 'HTTP ' + reply.status;
}

/**
 * The request field or query parameter an error is about: the body's "field" when the server sets it, else the name
 * in "field 'x'" or "query parameter 'x'" in the message; null when neither says.
 */
export function errorField(reply) {
  const body = reply.body || {};
  if (typeof body.field === 'string' && body.field) return body.field;
  const match = /(?:field|query parameter) '([^']+)'/.exec(body.message || '');
  return match ? match[1] : null;
}

/** "/api/instances" + {status: 'FAILED', jobId: ''} -> "/api/instances?status=FAILED" (empty values left out). */
export function withQuery(path, params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== '') query.set(key, value);
  }
  const text = query.toString();
  return text ? path + '?' + text : path;
}

/** Job names by id, for views whose items carry only a jobId (a server without jobName in instances). */
const jobNames = new Map();

export async function jobName(jobId) {
  if (!jobNames.has(jobId)) {
    jobNames.set(jobId, call('GET', '/api/jobs/' + encodeURIComponent(jobId))
      .then((reply) => (reply.ok ? reply.body.name : reply.status === 404 ? null : undefined)));
  }
  const name = await jobNames.get(jobId);
  if (name === undefined) jobNames.delete(jobId); // not known yet (server trouble): ask again next time
  return name;
}

export function rememberJobName(jobId, name) {
  jobNames.set(jobId, Promise.resolve(name));
}
