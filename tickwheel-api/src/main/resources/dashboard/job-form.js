// #/jobs/new and #/jobs/<id>/edit: every field of the API's JobRequest. Inputs are named by their JSON path
// ("schedule.expression", "retry.maxAttempts"), which is also what a 400 names, so the server's message is shown next
// to the input it is about. An empty input is left out of the JSON: the server's default applies. A token of every
// namespace picks the new job's namespace ("default" first); a token of one namespace creates jobs in its own.
'use strict';

import { el, fill, toLocalInput, fromLocalInput } from './dom.js';
import { call, messageOf, errorField } from './api.js';
import { go } from './router.js';
import { numberOrText } from './jobs.js';
import { ofEveryNamespace } from './session.js';
import { namespaceNames, namespaceSelect } from './namespaces.js';

const DEFAULT_NAMESPACE = 'default';

const SCHEDULE_TYPES = ['CRON', 'FIXED_RATE', 'FIXED_DELAY', 'ONE_SHOT', 'API'];
/** The window and jitter fields, and the job's calendar, apply to these types only (ScheduleWindow). */
const WINDOW_TYPES = new Set(['CRON', 'FIXED_RATE']);
const WINDOW_FIELDS = ['jitterMs', 'spread', 'startAt', 'endAt', 'maxRuns'];
/** Which schedule fields each type takes (every other one must be absent): ScheduleSpec's table. */
const SCHEDULE_FIELDS = {
  CRON: ['expression', 'zone', ...WINDOW_FIELDS], FIXED_RATE: ['periodMs', 'at', ...WINDOW_FIELDS],
  FIXED_DELAY: ['delayMs'], ONE_SHOT: ['at'], API: [],
};
const TIME_FIELDS = new Set(['at', 'startAt', 'endAt']);
const NUMBER_FIELDS = new Set(['schedule.periodMs', 'schedule.delayMs', 'schedule.jitterMs', 'schedule.maxRuns',
  'retry.maxAttempts', 'retry.backoffMs', 'retry.multiplier', 'retry.maxBackoffMs', 'timeoutMs', 'maxConcurrent',
  'retentionDays', 'priority', 'callbackTimeoutMs']);

/** A labelled input with its error line; rows carry data-field so the right one can be shown or hidden. */
function row(label, input, help) {
  const field = input.name;
  return el('div', { class: 'form-row', 'data-field': field },
    el('label', { for: 'f-' + field }, label),
    el('div', { class: 'input' }, input, help ? el('div', { class: 'help' }, help) : null,
      el('div', { class: 'field-error', 'data-error-for': field })));
}

function text(name, attrs = {}) {
  return el('input', { id: 'f-' + name, name, autocomplete: 'off', ...attrs });
}

function number(name, placeholder) {
  return text(name, { inputmode: 'numeric', placeholder: placeholder || '', size: 14 });
}

function select(name, options, blankLabel) {
  return el('select', { id: 'f-' + name, name },
    blankLabel ? el('option', { value: '' }, blankLabel) : null,
    options.map((o) => el('option', { value: o }, o)));
}

/** namespaces: the names to pick the job's namespace from, or null for no namespace input (a token of one). */
function buildForm(editing, namespaces) {
  return el('form', { id: 'job-form', novalidate: true },
    el('div', { id: 'form-error', class: 'message error', hidden: true }),
    el('fieldset', {}, el('legend', {}, 'Job'),
      row('name', text('name', { required: true, maxlength: 200, size: 40 })),
      namespaces ? row('namespace', namespaceSelect({ id: 'f-namespace', name: 'namespace', disabled: !!editing },
        namespaces, DEFAULT_NAMESPACE), editing ? 'a job\'s namespace cannot change' : 'where the job and its instances'
        + ' belong: only tokens of this namespace (or of every one) see them') : null,
      row('enabled', el('input', { id: 'f-enabled', name: 'enabled', type: 'checkbox', checked: true }))),
    el('fieldset', {}, el('legend', {}, 'Schedule'),
      row('type', select('schedule.type', SCHEDULE_TYPES)),
      row('cron expression', text('schedule.expression', { size: 30, placeholder: '0 0/5 * * * ?' }),
        'Quartz syntax with seconds: sec min hour day-of-month month day-of-week [year]'),
      row('time zone', text('schedule.zone', { placeholder: 'UTC', size: 20 })),
      row('period (ms)', number('schedule.periodMs', 'e.g. 60000')),
      row('delay after each run (ms)', number('schedule.delayMs', 'e.g. 60000')),
      row('at', text('schedule.at', { type: 'datetime-local', step: 1 }),
        'your browser\'s time zone; ONE_SHOT: when; FIXED_RATE: the first trigger (empty: now)'),
      row('jitter (ms)', number('schedule.jitterMs', 'none'),
        'each instance fires up to this long after its trigger time, never before'),
      row('spread', el('input', { id: 'f-schedule.spread', name: 'schedule.spread', type: 'checkbox' }),
        'one offset per job instead of one per trigger: jobs on one expression fan out over the jitter'),
      row('start at', text('schedule.startAt', { type: 'datetime-local', step: 1 }), 'no trigger before this'),
      row('end at', text('schedule.endAt', { type: 'datetime-local', step: 1 }), 'no trigger after this'),
      row('max runs', number('schedule.maxRuns', 'no limit'), 'at most this many instances from the schedule'),
      row('calendar', text('calendar', { size: 30, placeholder: 'none' }),
        'the name of a calendar (POST /api/calendars): no instance on its excluded days')),
    el('fieldset', {}, el('legend', {}, 'Target'),
      row('type', select('target.type', ['WEBHOOK', 'HANDLER'])),
      row('webhook URL', text('target.url', { type: 'url', size: 50, placeholder: 'https://example.com/hook' })),
      row('handler name', text('target.name', { size: 30 }), 'a handler registered in the server')),
    el('fieldset', {}, el('legend', {}, 'Parameters'),
      row('params (JSON)', el('textarea', { id: 'f-params', name: 'params', rows: 4, cols: 50,
        placeholder: '{"any": "JSON value"}; handed to every instance' }))),
    el('fieldset', {}, el('legend', {}, 'Delivery'),
      row('misfire policy', select('misfirePolicy', ['FIRE_ONCE_NOW', 'SKIP', 'FIRE_ALL'], '(default: FIRE_ONCE_NOW)')),
      row('max attempts', number('retry.maxAttempts', '1 (no retry)')),
      row('retry backoff (ms)', number('retry.backoffMs', '0'), 'the wait after the first failed attempt'),
      row('backoff multiplier', number('retry.multiplier', '1 (a fixed wait)'),
        'the wait grows by this factor after each further failed attempt'),
      row('max backoff (ms)', number('retry.maxBackoffMs', '86400000 (a day)'), 'the longest wait'),
      row('retry delays (ms)', text('retry.delaysMs', { size: 30, placeholder: 'e.g. 1000, 60000, 600000' }),
        'instead of backoff, multiplier and max: the wait after each failed attempt, the last one repeated'),
      row('retry jitter', select('retry.jitter', ['NONE', 'FULL', 'EQUAL'], '(default: NONE)'),
        'FULL: a wait in [0, wait]; EQUAL: in [wait/2, wait]'),
      row('delivery', select('delivery', ['AT_LEAST_ONCE', 'AT_MOST_ONCE'], '(default: AT_LEAST_ONCE)')),
      row('timeout (ms)', number('timeoutMs', 'server default'), 'whole-call deadline of one attempt'),
      row('max concurrent', number('maxConcurrent', 'no limit')),
      row('pool', text('pool', { size: 30, placeholder: 'none' }),
        'the name of a pool (POST /api/pools) whose concurrency and rate this job shares'),
      row('over the limit', select('overLimit', ['WAIT', 'SKIP'], '(default: WAIT)'),
        'only with max concurrent or a pool'),
      row('priority', number('priority', '5'), '0..9, higher first when call slots are short'),
      row('completion', select('completion', ['IMMEDIATE', 'CALLBACK'], '(default: IMMEDIATE)'),
        'CALLBACK: the webhook answers 2xx at once and reports later to its Tickwheel-Callback-Url'),
      row('callback timeout (ms)', number('callbackTimeoutMs', '3600000 (an hour)'),
        'only with CALLBACK: how long the report may take after the answer or the last heartbeat')),
    el('fieldset', {}, el('legend', {}, 'Operations'),
      row('retention (days)', number('retentionDays', 'server default'), 'how long finished instances are kept'),
      row('alert URL', text('alertUrl', { type: 'url', size: 50, placeholder: 'server default' }),
        'where failure alerts of this job go'),
      row('signing secret', text('signingSecret', { type: 'password', size: 30, autocomplete: 'new-password',
        placeholder: editing ? 'empty: keep the current one' : 'none: calls are not signed' }),
        el('span', {}, el('span', { id: 'signed-state' }),
          editing ? el('label', { class: 'inline' }, el('input', { type: 'checkbox', id: 'remove-secret' }), ' remove secret') : null))),
    el('div', { class: 'form-actions' },
      el('button', { type: 'submit', class: 'primary', id: 'save-job' }, editing ? 'Save' : 'Create'),
      el('a', { class: 'button', href: editing ? '#/jobs/' + encodeURIComponent(editing) : '#/jobs' }, 'Cancel')));
}

function input(form, name) {
  return form.elements.namedItem(name);
}

/** Shows the schedule and target inputs the chosen types use and hides the rest. */
function showRelevant(form) {
  const scheduleType = input(form, 'schedule.type').value;
  for (const field of ['expression', 'zone', 'periodMs', 'delayMs', 'at', ...WINDOW_FIELDS]) {
    form.querySelector('[data-field="schedule.' + field + '"]').hidden = !SCHEDULE_FIELDS[scheduleType].includes(field);
  }
  form.querySelector('[data-field="calendar"]').hidden = !WINDOW_TYPES.has(scheduleType);
  const webhook = input(form, 'target.type').value === 'WEBHOOK';
  form.querySelector('[data-field="target.url"]').hidden = !webhook;
  form.querySelector('[data-field="target.name"]').hidden = webhook;
}

function populate(form, job) {
  const set = (name, value) => { input(form, name).value = value === null || value === undefined ? '' : String(value); };
  set('name', job.name);
  if (input(form, 'namespace') && job.namespace) {
    const select = input(form, 'namespace');
    if (![...select.options].some((o) => o.value === job.namespace)) select.append(el('option', {}, job.namespace));
    set('namespace', job.namespace);
  }
  input(form, 'enabled').checked = job.enabled;
  const s = job.schedule;
  set('schedule.type', s.type);
  set('schedule.expression', s.expression);
  set('schedule.zone', s.zone);
  set('schedule.periodMs', s.periodMs);
  set('schedule.delayMs', s.delayMs);
  set('schedule.at', toLocalInput(s.at));
  set('schedule.jitterMs', s.jitterMs);
  input(form, 'schedule.spread').checked = s.spread === true;
  set('schedule.startAt', toLocalInput(s.startAt));
  set('schedule.endAt', toLocalInput(s.endAt));
  set('schedule.maxRuns', s.maxRuns);
  set('calendar', job.calendar);
  set('target.type', job.target.type);
  set('target.url', job.target.url);
  set('target.name', job.target.name);
  set('params', job.params === null || job.params === undefined ? '' : JSON.stringify(job.params, null, 2));
  set('misfirePolicy', job.misfirePolicy);
  set('retry.maxAttempts', job.retry && job.retry.maxAttempts);
  set('retry.backoffMs', job.retry && job.retry.backoffMs);
  set('retry.multiplier', job.retry && job.retry.multiplier);
  set('retry.maxBackoffMs', job.retry && job.retry.maxBackoffMs);
  set('retry.delaysMs', job.retry && job.retry.delaysMs && job.retry.delaysMs.join(', '));
  set('retry.jitter', job.retry && job.retry.jitter);
  set('delivery', job.delivery);
  set('timeoutMs', job.timeoutMs);
  set('maxConcurrent', job.maxConcurrent);
  set('overLimit', job.overLimit);
  set('pool', job.pool);
  set('priority', job.priority);
  set('completion', job.completion);
  set('callbackTimeoutMs', job.callbackTimeoutMs);
  set('retentionDays', job.retentionDays);
  set('alertUrl', job.alertUrl);
  form.querySelector('#signed-state').textContent = 'signed: ' + (job.signed ? 'yes' : 'no');
}

/** The form as a JobRequest, empty inputs left out; throws {field, message} for a params text that is not JSON. */
function requestOf(form, editing) {
  const value = (name) => input(form, name).value.trim();
  const put = (target, key, name) => {
    const raw = value(name);
    if (raw !== '') target[key] = NUMBER_FIELDS.has(name) ? numberOrText(raw) : raw;
  };
  const body = { enabled: input(form, 'enabled').checked };
  put(body, 'name', 'name');
  if (!editing && input(form, 'namespace')) put(body, 'namespace', 'namespace');
  const type = value('schedule.type');
  const schedule = { type };
  for (const field of SCHEDULE_FIELDS[type]) {
    if (TIME_FIELDS.has(field)) {
      const raw = value('schedule.' + field);
      if (raw) schedule[field] = fromLocalInput(raw) || raw;
    } else if (field === 'spread') {
      if (input(form, 'schedule.spread').checked) schedule.spread = true;
    } else {
      put(schedule, field, 'schedule.' + field);
    }
  }
  body.schedule = schedule;
  if (WINDOW_TYPES.has(type)) put(body, 'calendar', 'calendar');
  const target = { type: value('target.type') };
  if (target.type === 'WEBHOOK') put(target, 'url', 'target.url'); else put(target, 'name', 'target.name');
  body.target = target;
  const params = input(form, 'params').value;
  if (params.trim()) {
    try {
      body.params = JSON.parse(params);
    } catch (e) {
      throw { field: 'params', message: 'params is not valid JSON: ' + e.message };
    }
  }
  put(body, 'misfirePolicy', 'misfirePolicy');
  const retry = {};
  put(retry, 'maxAttempts', 'retry.maxAttempts');
  put(retry, 'backoffMs', 'retry.backoffMs');
  put(retry, 'multiplier', 'retry.multiplier');
  put(retry, 'maxBackoffMs', 'retry.maxBackoffMs');
  const delays = value('retry.delaysMs');
  if (delays !== '') retry.delaysMs = delays.split(/[\s,]+/).filter((d) => d !== '').map(numberOrText);
  put(retry, 'jitter', 'retry.jitter');
  if (Object.keys(retry).length) body.retry = retry;
  for (const name of ['delivery', 'timeoutMs', 'maxConcurrent', 'pool', 'overLimit', 'priority', 'completion',
    'callbackTimeoutMs', 'retentionDays', 'alertUrl']) {
    put(body, name, name);
  }
  const secret = input(form, 'signingSecret').value; // a secret is taken as typed: spaces may be part of it
  const remove = form.querySelector('#remove-secret');
  if (secret) body.signingSecret = secret;
  else if (editing && remove && remove.checked) body.signingSecret = '';
  return body;
}

/** The input row an error's field belongs to: itself, else its first sub-field ("schedule" -> "schedule.type"), else its parent's. */
function errorSlot(form, field) {
  for (let name = field; name; name = name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : '') {
    const exact = form.querySelector('[data-error-for="' + CSS.escape(name) + '"]');
    if (exact) return exact;
    const child = form.querySelector('[data-error-for^="' + CSS.escape(name + '.') + '"]');
    if (child) return child;
  }
  return null;
}

function clearErrors(form) {
  form.querySelectorAll('.field-error').forEach((e) => { e.textContent = ''; });
  form.querySelectorAll('.form-row.invalid').forEach((e) => e.classList.remove('invalid'));
  form.querySelector('#form-error').hidden = true;
}

function showError(form, field, message) {
  const top = form.querySelector('#form-error');
  top.textContent = message;
  top.hidden = false;
  const slot = field ? errorSlot(form, field) : null;
  if (slot) {
    slot.textContent = message;
    const rowNode = slot.closest('.form-row');
    rowNode.classList.add('invalid');
    rowNode.hidden = false;
    const control = rowNode.querySelector('input, select, textarea');
    if (control) control.focus();
  }
}

export async function render(ctx, query, id) {
  const editing = id || null;
  const namespaces = ofEveryNamespace() ? await namespaceNames() : null;
  if (!ctx.alive()) return;
  const form = buildForm(editing, namespaces);
  let job = null;
  if (editing) {
    const reply = await call('GET', '/api/jobs/' + encodeURIComponent(editing));
    if (!ctx.alive()) return;
    if (!reply.ok) {
      ctx.refused('Edit job ' + editing, messageOf(reply), '#/jobs', 'All jobs');
      return;
    }
    job = reply.body;
    populate(form, job);
  } else {
    form.querySelector('#signed-state').textContent = '';
  }
  showRelevant(form);
  input(form, 'schedule.type').addEventListener('change', () => showRelevant(form));
  input(form, 'target.type').addEventListener('change', () => showRelevant(form));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    let body;
    try {
      body = requestOf(form, editing);
    } catch (problem) {
      showError(form, problem.field, problem.message);
      return;
    }
    const save = form.querySelector('#save-job');
    save.disabled = true;
    const reply = editing ? await call('PUT', '/api/jobs/' + encodeURIComponent(editing), body)
      : await call('POST', '/api/jobs', body);
    save.disabled = false;
    if (!ctx.alive()) return;
    if (reply.ok) {
      go('#/jobs/' + encodeURIComponent(reply.body.id), { message: 'job "' + reply.body.name + '" ' + (editing ? 'saved' : 'created') });
    } else {
      showError(form, reply.status === 400 ? errorField(reply) : null, messageOf(reply));
    }
  });
  fill(ctx.root, el('h2', {}, editing ? 'Edit job "' + job.name + '"' : 'New job'), form);
  ctx.ready();
  input(form, 'name').focus();
}
