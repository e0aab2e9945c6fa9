// #/jobs (the list: search by name, cursor paging, per-row actions) and #/jobs/<id> (one job, its actions and its
// latest instances). Actions: enable/disable, edit, delete (asks to confirm), run now with params and a delay; each
// drawn only for a role that may use it (session.js). A token of every namespace filters the list by namespace.
'use strict';

import { el, fill, timeEl, scheduleSummary, targetSummary, jsonText, durationText, statusEl } from './dom.js';
import { call, read, messageOf, errorField, withQuery, rememberJobName } from './api.js';
import { go, notify } from './router.js';
import { mayOperate, mayAdmin, ofEveryNamespace } from './session.js';
import { deleteButton } from './delete-button.js';
import { namespaceNames, namespaceSelect } from './namespaces.js';

const PAGE_SIZE = 50;
const SEARCH_DEBOUNCE_MS = 250;

function jobHash(id, suffix = '') {
  return '#/jobs/' + encodeURIComponent(id) + suffix;
}

/** The run-now form: params (any JSON, empty = the job's own) and a delay; shows a link to the new instance. */
function runForm(job, onClose) {
  const params = el('textarea', { name: 'params', rows: 3, placeholder: 'JSON, e.g. {"to": "ops"}; empty: the job\'s params' });
  const delay = el('input', { name: 'delayMs', inputmode: 'numeric', placeholder: '0 = now', size: 12 });
  const priority = el('input', { name: 'priority', inputmode: 'numeric', placeholder: 'job\'s (' + job.priority + ')', size: 8 });
  const errors = {
    params: el('span', { class: 'field-error', 'data-error-for': 'params' }),
    delayMs: el('span', { class: 'field-error', 'data-error-for': 'delayMs' }),
    priority: el('span', { class: 'field-error', 'data-error-for': 'priority' }),
  };
  const result = el('div', { class: 'run-result' });
  const form = el('form', { class: 'run-form', 'data-job-id': job.id },
    el('label', {}, 'params ', params, errors.params),
    el('label', {}, 'delay (ms) ', delay, errors.delayMs),
    el('label', {}, 'priority ', priority, errors.priority),
    el('button', { type: 'submit', class: 'primary run-submit' }, 'Run'),
    onClose ? el('button', { type: 'button', class: 'run-close', onclick: onClose }, 'Close') : null,
    result);
  onRunSubmit(form, { params, errors, result }, (body) => {
    if (delay.value.trim()) body.delayMs = numberOrText(delay.value);
    if (priority.value.trim()) body.priority = numberOrText(priority.value);
    return call('POST', '/api/jobs/' + encodeURIComponent(job.id) + '/run', body);
  }, (made) => ['instance ', el('a', { class: 'instance-link', href: '#/instances/' + encodeURIComponent(made.instanceId) },
    made.instanceId), ' due ', timeEl(made.expectedTriggerTime)]);
  return form;
}

/**
 * The submit of a run form (a job's, a workflow's): clears its errors and result, reads the params input as JSON (a
 * slip is shown at it), then send(body) with body.params set unless empty; a success is drawn in result by
 * shown(reply body), a refusal at the input it names (errors by field) and in result.
 */
export function onRunSubmit(form, { params, errors, result }, send, shown) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    Object.values(errors).forEach((e) => { e.textContent = ''; });
    fill(result);
    const body = {};
    if (params.value.trim()) {
      try {
        body.params = JSON.parse(params.value);
      } catch (e) {
        errors.params.textContent = 'not valid JSON: ' + e.message;
        return;
      }
    }
    const reply = await send(body);
    if (reply.ok) {
      fill(result, shown(reply.body));
      result.className = 'run-result ok';
    } else {
      const field = errorField(reply);
      if (field && errors[field]) errors[field].textContent = reply.body.message;
      fill(result, messageOf(reply));
      result.className = 'run-result error';
    }
  });
}

/** "12" -> 12; anything that is not a safe integer goes as typed, for the server to refuse with its field name. */
export function numberOrText(raw) {
  const text = raw.trim();
  return /^-?\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : text;
}

/**
 * Buttons acting on one job, those the role may use: enable/disable and run (OPERATE), edit and delete (ADMIN), history
 * (any); onChange(job) after enable/disable, onDeleted() after a delete.
 */
function actions(job, { onChange, onDeleted, onRun }) {
  const action = job.enabled ? 'disable' : 'enable';
  const operate = mayOperate();
  const admin = mayAdmin();
  const toggle = !operate ? null : el('button', { type: 'button', class: 'toggle', onclick: async () => {
    const reply = await call('POST', '/api/jobs/' + encodeURIComponent(job.id) + '/' + action);
    if (reply.ok) {
      notify('job "' + reply.body.name + '" ' + action + 'd', 'ok');
      onChange(reply.body);
    } else {
      notify(action + ' failed: ' + messageOf(reply), 'error');
    }
  } }, action);
  const remove = !admin ? null : deleteButton('delete', 'delete "' + job.name + '"?',
    '/api/jobs/' + encodeURIComponent(job.id), () => {
      notify('job "' + job.name + '" deleted; its waiting instances were cancelled', 'ok');
      onDeleted();
    });
  return [toggle,
    admin ? el('a', { class: 'button edit', href: jobHash(job.id, '/edit') }, 'edit') : null,
    operate ? el('button', { type: 'button', class: 'run', onclick: onRun }, 'run now…') : null,
    el('a', { class: 'button history', href: withQuery('#/instances', { jobId: job.id }) }, 'history'),
    remove];
}

function jobRow(job) {
  rememberJobName(job.id, job.name);
  const row = el('tr', { 'data-job-id': job.id });
  const runRow = () => {
    const next = row.nextElementSibling;
    return next && next.classList.contains('run-row') ? next : null;
  };
  const draw = (current) => fill(row,
    el('td', { class: 'job-name' }, el('a', { href: jobHash(current.id) }, current.name)),
    el('td', { class: 'schedule' }, scheduleSummary(current.schedule)),
    el('td', { class: 'job-namespace' }, current.namespace),
    el('td', { class: 'target' }, targetSummary(current.target)),
    el('td', { class: 'job-enabled ' + (current.enabled ? 'yes' : 'no') }, current.enabled ? 'yes' : 'no'),
    el('td', { class: 'next-trigger' }, timeEl(current.nextTriggerTime)),
    el('td', { class: 'actions' }, actions(current, {
      onChange: draw,
      onDeleted: () => {
        if (runRow()) runRow().remove();
        row.remove();
      },
      onRun: () => {
        if (runRow()) {
          runRow().remove(); // the button toggles the form
          return;
        }
        const formRow = el('tr', { class: 'run-row' });
        formRow.append(el('td', { colspan: COLUMNS.length }, runForm(current, () => formRow.remove())));
        row.after(formRow);
        formRow.querySelector('textarea').focus();
      },
    })));
  draw(job);
  return row;
}

const COLUMNS = ['name', 'schedule', 'namespace', 'target', 'enabled', 'next trigger', ''];

export async function renderList(ctx, query) {
  const namespace = query.namespace || '';
  const names = ofEveryNamespace() ? await namespaceNames() : null;
  if (!ctx.alive()) return;
  const search = el('input', { id: 'job-search', type: 'search', name: 'name', value: query.name || '',
    placeholder: 'name contains…', autocomplete: 'off' });
  const namespaceFilter = names && namespaceSelect({ id: 'namespace-filter', name: 'namespace', title: 'namespace',
    onchange: (e) => go(withQuery('#/jobs', { name: search.value.trim(), namespace: e.target.value })) },
    names, namespace, 'every namespace');
  const tbody = el('tbody');
  const paging = el('div', { class: 'paging' });
  const summary = el('span', { class: 'muted' });
  fill(ctx.root,
    el('div', { class: 'toolbar' },
      el('h2', {}, 'Jobs'),
      el('form', { class: 'search', role: 'search', onsubmit: (e) => { e.preventDefault(); searchNow(); } },
        search, el('button', { type: 'submit' }, 'Search')),
      namespaceFilter,
      mayAdmin() ? el('a', { class: 'button primary', id: 'new-job', href: '#/jobs/new' }, 'New job') : null),
    el('table', { id: 'jobs' },
      el('thead', {}, el('tr', {}, COLUMNS.map((h) => el('th', {}, h)))),
      tbody),
    el('div', { class: 'table-footer' }, summary, paging));

  let shownName = query.name || '';
  let sequence = 0;
  async function load(name, cursor) {
    const mine = ++sequence;
    const page = await read(withQuery('/api/jobs', { name, namespace, cursor, limit: PAGE_SIZE }));
    if (!ctx.alive() || mine !== sequence) return;
    fill(tbody, page.items.length ? page.items.map(jobRow)
      : el('tr', { class: 'empty' }, el('td', { colspan: COLUMNS.length },
        name ? 'No job name contains "' + name + '".' : 'No jobs yet.')));
    summary.textContent = page.items.length + (page.items.length === 1 ? ' job' : ' jobs') + (cursor ? ' on this page' : '')
      + (page.nextCursor ? ', more on the next page' : '');
    fill(paging,
      cursor ? el('a', { class: 'button first', href: withQuery('#/jobs', { name, namespace }) }, 'First') : null,
      page.nextCursor ? el('a', { class: 'button next',
        href: withQuery('#/jobs', { name, namespace, cursor: page.nextCursor }) }, 'Next') : null);
    ctx.ready();
  }

  // Typing searches as it goes (debounced) and rewrites the hash in place, so a link reproduces the view.
  let timer = null;
  function searchNow() {
    clearTimeout(timer);
    const name = search.value.trim();
    if (name === shownName) return;
    shownName = name;
    const hash = withQuery('#/jobs', { name, namespace });
    history.replaceState(null, '', hash);
    ctx.hash = hash;
    load(name, null).catch((e) => ctx.fail(e));
  }
  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(searchNow, SEARCH_DEBOUNCE_MS);
  });
  await load(query.name || '', query.cursor || null);
  if (query.name) search.focus();
}

/** "3 attempts, 1 s ×2 up to 1 min apart, full jitter" or "4 attempts, after 1 s, 1 min, 10 min". */
export function retryText(retry) {
  let text = retry.maxAttempts + (retry.maxAttempts === 1 ? ' attempt' : ' attempts');
  if (retry.maxAttempts > 1) {
    if (retry.delaysMs) {
      text += ', after ' + retry.delaysMs.map(durationText).join(', ');
    } else if (retry.multiplier && retry.multiplier !== 1) {
      text += ', ' + durationText(retry.backoffMs) + ' ×' + retry.multiplier + ' up to '
        + durationText(retry.maxBackoffMs) + ' apart';
    } else {
      text += ', ' + durationText(retry.backoffMs) + ' apart';
    }
    if (retry.jitter && retry.jitter !== 'NONE') text += ', ' + retry.jitter.toLowerCase() + ' jitter';
  }
  return text;
}

function definitionList(pairs) {
  return el('dl', { class: 'fields' }, pairs.filter(([, value]) => value !== undefined).map(([term, value, cls]) => [
    el('dt', {}, term), el('dd', { class: cls || null }, value === null || value === '' ? el('span', { class: 'muted' }, '—') : value)]));
}

function scheduleDetails(s) {
  const parts = [s.type];
  if (s.expression) parts.push('expression ' + s.expression);
  if (s.zone) parts.push('zone ' + s.zone);
  if (s.periodMs != null) parts.push('period ' + s.periodMs + ' ms');
  if (s.delayMs != null) parts.push('delay ' + s.delayMs + ' ms');
  if (s.jitterMs != null) parts.push('jitter up to ' + durationText(s.jitterMs) + (s.spread ? ' (spread per job)' : ''));
  if (s.maxRuns != null) parts.push('at most ' + s.maxRuns + ' runs');
  return el('span', {}, parts.join(', '), s.at ? [', at ', timeEl(s.at)] : null,
    s.startAt ? [', from ', timeEl(s.startAt)] : null, s.endAt ? [', until ', timeEl(s.endAt)] : null);
}

export async function renderJob(ctx, query, id) {
  const reply = await call('GET', '/api/jobs/' + encodeURIComponent(id));
  if (!ctx.alive()) return;
  if (!reply.ok) {
    ctx.refused('Job ' + id, messageOf(reply), '#/jobs', 'All jobs');
    return;
  }
  const details = el('div');
  const runBox = el('div', { class: 'run-box' });
  const recent = el('tbody');
  const draw = (job) => {
    rememberJobName(job.id, job.name);
    const toggleRun = () => (runBox.firstChild ? fill(runBox) : fill(runBox, runForm(job, () => fill(runBox))));
    fill(details,
      el('div', { class: 'toolbar' }, el('h2', { id: 'job-title' }, job.name),
        el('span', { class: 'actions' }, actions(job, {
          onChange: draw, onDeleted: () => go('#/jobs', { message: 'job "' + job.name + '" deleted' }), onRun: toggleRun }))),
      definitionList([
        ['id', job.id],
        ['namespace', job.namespace, 'job-namespace'],
        ['enabled', job.enabled ? 'yes' : 'no', 'job-enabled'],
        ['schedule', scheduleDetails(job.schedule)],
        ['summary', scheduleSummary(job.schedule)],
        ['calendar', job.calendar || undefined, 'job-calendar'],
        ['next trigger', timeEl(job.nextTriggerTime)],
        ['target', job.target.type + ' ' + targetSummary(job.target).replace(/^handler /, '')],
        ['params', job.params == null ? null : el('pre', {}, jsonText(job.params))],
        ['misfire policy', job.misfirePolicy],
        ['retry', job.retry ? retryText(job.retry) : null, 'job-retry'],
        ['delivery', job.delivery],
        ['timeout', job.timeoutMs == null ? 'server default' : job.timeoutMs + ' ms'],
        ['max concurrent', job.maxConcurrent == null ? 'no limit' : job.maxConcurrent + (job.overLimit ? ', over the limit: ' + job.overLimit : '')],
        ['pool', job.pool ? job.pool + (job.maxConcurrent == null && job.overLimit ? ', over the limit: ' + job.overLimit : '') : undefined, 'job-pool'],
        ['priority', job.priority, 'job-priority'],
        ['completion', job.completion === 'CALLBACK' ? 'by callback, within ' + job.callbackTimeoutMs + ' ms'
          : job.completion === undefined ? undefined : 'when the call answers', 'job-completion'],
        ['retention', 'retentionDays' in job ? (job.retentionDays == null ? 'server default' : job.retentionDays + ' days') : undefined],
        ['alert URL', 'alertUrl' in job ? job.alertUrl : undefined],
        ['signed', 'signed' in job ? (job.signed ? 'yes' : 'no') : undefined, 'job-signed'],
        ['created', timeEl(job.createdAt)],
        ['updated', timeEl(job.updatedAt)],
      ]));
  };
  draw(reply.body);
  const job = reply.body;
  fill(ctx.root, details, runBox,
    el('section', {}, el('div', { class: 'toolbar' }, el('h2', {}, 'Latest instances'),
      el('a', { class: 'button', href: withQuery('#/instances', { jobId: job.id }) }, 'full history')),
    el('table', { id: 'job-instances' }, el('thead', {}, el('tr', {},
      ['id', 'status', 'expected', 'actual', 'attempt'].map((h) => el('th', {}, h)))), recent)));
  if (query.run && mayOperate()) fill(runBox, runForm(job, () => fill(runBox)));

  async function loadRecent() {
    const page = await read(withQuery('/api/instances', { jobId: job.id, limit: 10 }));
    if (!ctx.alive()) return;
    fill(recent, page.items.length ? page.items.map((i) => el('tr', { 'data-instance-id': i.id },
      el('td', {}, el('a', { href: '#/instances/' + encodeURIComponent(i.id) }, i.id)),
      el('td', { class: 'status' }, statusEl(i.status)), el('td', {}, timeEl(i.expectedTriggerTime)),
      el('td', {}, timeEl(i.actualTriggerTime)), el('td', {}, i.attempt)))
      : el('tr', { class: 'empty' }, el('td', { colspan: 5 }, 'No instances yet.')));
  }
  await loadRecent();
  ctx.ready();
  ctx.every(2000, loadRecent);
}
