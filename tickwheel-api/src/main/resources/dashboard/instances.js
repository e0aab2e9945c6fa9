// #/instances?jobId=&status=&from=&to=&cursor= (history, latest first, filters kept in the hash so that a link
// reproduces the view; "rerun matching" reruns the finished ones the filters match, after a confirmation that states
// how many) and #/instances/<id> (every field, the attempts, the error, Cancel while WAITING, Rerun once finished).
// Cancel and the reruns are drawn for an OPERATE or ADMIN token only; a token of every namespace filters by namespace.
'use strict';

import { el, fill, timeEl, durationText, statusEl, jsonText, toLocalInput, fromLocalInput } from './dom.js';
import { call, read, messageOf, errorField, withQuery, jobName } from './api.js';
import { go, notify } from './router.js';
import { mayOperate, ofEveryNamespace } from './session.js';
import { namespaceNames, namespaceSelect } from './namespaces.js';

const PAGE_SIZE = 50;
const REFRESH_MS = 2000;
const STATUSES = ['WAITING', 'DISPATCHING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'INTERRUPTED'];
const UNFINISHED = new Set(['WAITING', 'DISPATCHING']);
const FILTERS = ['jobId', 'key', 'status', 'from', 'to', 'namespace'];

function instanceHash(id) {
  return '#/instances/' + encodeURIComponent(id);
}

/** actual - expected in ms: the server's latenessMs when it sends one, else computed; null before the first claim. */
function latenessOf(instance) {
  if ('latenessMs' in instance) return instance.latenessMs;
  if (!instance.actualTriggerTime) return null;
  return Date.parse(instance.actualTriggerTime) - Date.parse(instance.expectedTriggerTime);
}

/** A cell with the job's name: from the item when the server sends jobName, else looked up (and cached). */
function jobCell(instance) {
  const cell = el('td', { class: 'job' });
  const show = (name) => fill(cell, name === null ? el('span', { class: 'muted', title: 'job ' + instance.jobId }, '(deleted job)')
    : el('a', { href: '#/jobs/' + encodeURIComponent(instance.jobId), title: 'job ' + instance.jobId,
      onclick: (e) => e.stopPropagation() }, name === undefined ? instance.jobId : name));
  if ('jobName' in instance) show(instance.jobName);
  else {
    show(undefined);
    jobName(instance.jobId).then(show);
  }
  return cell;
}

function historyRow(i) {
  const lateness = latenessOf(i);
  return el('tr', { 'data-instance-id': i.id, class: 'clickable', onclick: () => go(instanceHash(i.id)) },
    el('td', { class: 'id' }, el('a', { href: instanceHash(i.id), onclick: (e) => e.stopPropagation() }, i.id)),
    jobCell(i),
    el('td', { class: 'status' }, statusEl(i.status)),
    el('td', { class: 'expected' }, timeEl(i.expectedTriggerTime)),
    el('td', { class: 'actual' }, timeEl(i.actualTriggerTime)),
    el('td', { class: 'lateness' }, lateness === null ? '' : durationText(lateness)),
    el('td', { class: 'attempt' }, i.attempt),
    el('td', { class: 'node', title: i.claimEpoch == null ? '' : 'epoch ' + i.claimEpoch }, i.claimNode == null ? '' : i.claimNode));
}

/** The job filter: a job id, or a name to look up (one match is taken; several are offered to pick from). */
async function resolveJob(raw) {
  const textValue = raw.trim();
  if (!textValue || /^\d+$/.test(textValue)) return { jobId: textValue };
  const page = await read(withQuery('/api/jobs', { name: textValue, limit: 10 }));
  const exact = page.items.filter((j) => j.name === textValue);
  if (exact.length === 1) return { jobId: exact[0].id };
  if (page.items.length === 1) return { jobId: page.items[0].id };
  return { choices: page.items, error: page.items.length ? 'several jobs match "' + textValue + '": pick one'
    : 'no job name contains "' + textValue + '"' };
}

/** namespaces: the names of the namespace filter, or null for none (a token of one namespace). */
function filterForm(query, namespaces, onApply) {
  const options = el('datalist', { id: 'job-options' });
  const job = el('input', { name: 'job', list: 'job-options', value: query.jobId || '', size: 22,
    placeholder: 'job id or name', autocomplete: 'off' });
  const jobLabel = el('span', { class: 'job-filter-name muted' });
  const key = el('input', { name: 'key', value: query.key || '', size: 16, maxlength: 200,
    placeholder: 'run key (with a job)', autocomplete: 'off' });
  const status = el('select', { name: 'status' }, el('option', { value: '' }, 'any status'),
    STATUSES.map((s) => el('option', { value: s, selected: s === (query.status || '').toUpperCase() }, s)));
  const from = el('input', { name: 'from', type: 'datetime-local', step: 1, value: toLocalInput(query.from) });
  const to = el('input', { name: 'to', type: 'datetime-local', step: 1, value: toLocalInput(query.to) });
  const namespace = namespaces && namespaceSelect({ name: 'namespace' }, namespaces, query.namespace || '',
    'every namespace');
  const errors = Object.fromEntries(FILTERS.map((f) =>
    [f, el('span', { class: 'field-error', 'data-error-for': f })]));
  const choices = el('div', { class: 'choices' });
  const form = el('form', { id: 'history-filters', class: 'filters' },
    el('label', {}, 'job ', job, options, jobLabel, errors.jobId),
    el('label', {}, 'key ', key, errors.key),
    el('label', {}, 'status ', status, errors.status),
    el('label', {}, 'from ', from, errors.from),
    el('label', {}, 'to ', to, errors.to),
    namespace ? el('label', {}, 'namespace ', namespace, errors.namespace) : null,
    el('button', { type: 'submit', class: 'primary', id: 'apply-filters' }, 'Apply'),
    el('a', { class: 'button', href: '#/instances' }, 'Clear'),
    el('span', { class: 'muted' }, 'times in your browser\'s zone'),
    choices);
  if (query.jobId) jobName(query.jobId).then((name) => { jobLabel.textContent = name === null ? '(deleted job)' : name || ''; });

  // Suggestions while typing a name: the datalist offers "id" with the name as its label.
  let timer = null;
  job.addEventListener('input', () => {
    clearTimeout(timer);
    const typed = job.value.trim();
    if (!typed || /^\d+$/.test(typed)) return;
    timer = setTimeout(async () => {
      const reply = await call('GET', withQuery('/api/jobs', { name: typed, limit: 10 }));
      if (reply.ok) fill(options, reply.body.items.map((j) => el('option', { value: j.id, label: j.name })));
    }, 250);
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    Object.values(errors).forEach((e) => { e.textContent = ''; });
    fill(choices);
    const resolved = await resolveJob(job.value).catch((e) => ({ error: e.message, choices: [] }));
    if (resolved.error) {
      errors.jobId.textContent = resolved.error;
      fill(choices, resolved.choices.map((j) => el('button', { type: 'button', class: 'choice',
        onclick: () => { job.value = j.id; form.requestSubmit(); } }, j.name + ' (' + j.id + ')')));
      return;
    }
    onApply({ jobId: resolved.jobId, key: key.value, status: status.value, from: fromLocalInput(from.value),
      to: fromLocalInput(to.value), namespace: namespace ? namespace.value : '' });
  });
  status.addEventListener('change', () => form.requestSubmit());
  if (namespace) namespace.addEventListener('change', () => form.requestSubmit());
  return { form, showError: (field, message) => {
    const slot = errors[field] || null;
    if (slot) slot.textContent = message;
    return slot !== null;
  } };
}

export async function renderHistory(ctx, query) {
  const filters = Object.fromEntries(FILTERS.map((f) => [f, query[f] || '']));
  const cursor = query.cursor || '';
  const tbody = el('tbody');
  const paging = el('div', { class: 'paging' });
  const summary = el('span', { class: 'muted' });
  const problem = el('p', { class: 'message error', hidden: true });
  const names = ofEveryNamespace() ? await namespaceNames() : null;
  if (!ctx.alive()) return;
  const { form, showError } = filterForm(query, names, (applied) => go(withQuery('#/instances', applied)));
  fill(ctx.root,
    el('div', { class: 'toolbar' }, el('h2', {}, 'Instance history'),
      el('span', { class: 'muted' }, cursor ? 'older page' : 'latest first, refreshed every ' + REFRESH_MS / 1000 + ' s')),
    form, mayOperate() ? bulkRerun(filters) : null, problem,
    el('table', { id: 'instances' },
      el('thead', {}, el('tr', {}, ['id', 'job', 'status', 'expected', 'actual', 'lateness', 'attempt', 'node']
        .map((h) => el('th', {}, h)))),
      tbody),
    el('div', { class: 'table-footer' }, summary, paging));

  let shown = null;
  async function load() {
    const reply = await call('GET', withQuery('/api/instances', { ...filters, cursor, limit: PAGE_SIZE }));
    if (!ctx.alive()) return;
    if (!reply.ok) {
      const field = errorField(reply);
      if (!(field && showError(field, reply.body.message))) {
        problem.textContent = messageOf(reply);
        problem.hidden = false;
      }
      fill(tbody);
      ctx.ready();
      return;
    }
    const text = JSON.stringify(reply.body);
    if (text === shown) return; // unchanged: keep the rows (and what the operator points at)
    shown = text;
    const page = reply.body;
    fill(tbody, page.items.length ? page.items.map(historyRow)
      : el('tr', { class: 'empty' }, el('td', { colspan: 8 }, 'No instances match.')));
    summary.textContent = page.items.length + (page.items.length === 1 ? ' instance' : ' instances')
      + (page.nextCursor ? ', older ones on the next page' : '');
    fill(paging,
      cursor ? el('a', { class: 'button newest', href: withQuery('#/instances', filters) }, 'Newest') : null,
      page.nextCursor ? el('a', { class: 'button next', href: withQuery('#/instances', { ...filters, cursor: page.nextCursor }) }, 'Next') : null);
    ctx.ready();
  }
  await load();
  if (!cursor) ctx.every(REFRESH_MS, load);
}

function attemptsTable(attempts) {
  return el('table', { id: 'attempts' },
    el('thead', {}, el('tr', {}, ['attempt', 'outcome', 'started', 'ended', 'lateness', 'node', 'epoch', 'error']
      .map((h) => el('th', {}, h)))),
    el('tbody', {}, attempts.length ? attempts.map((a) => el('tr', { 'data-attempt': a.attempt },
      el('td', {}, a.attempt), el('td', { class: 'outcome' }, statusEl(a.outcome)),
      el('td', {}, timeEl(a.startedAt)), el('td', {}, timeEl(a.endedAt)),
      el('td', {}, a.latenessMs == null ? '' : durationText(a.latenessMs)),
      el('td', {}, a.node == null ? '' : a.node), el('td', {}, a.epoch == null ? '' : a.epoch),
      el('td', {}, a.error ? el('pre', { class: 'attempt-error' }, a.error) : '')))
      : el('tr', { class: 'empty' }, el('td', { colspan: 8 }, 'Not claimed yet.'))));
}

/**
 * "Rerun matching…": counts (a dry run) the finished instances the applied filters match, asks to confirm with the
 * count, then reruns them (each once: an instance rerun before is not rerun again).
 */
function bulkRerun(filters) {
  const body = {};
  if (filters.jobId) body.jobId = filters.jobId;
  if (filters.status) body.status = filters.status;
  if (filters.from) body.from = filters.from;
  if (filters.to) body.to = filters.to;
  const box = el('div', { class: 'rerun-box' });
  const failed = (reply) => notify('rerun: ' + messageOf(reply), 'error');
  const start = () => fill(box, el('button', { type: 'button', class: 'rerun-matching', onclick: ask },
    'rerun matching…'));
  async function ask() {
    if (filters.key) {
      notify('rerun: a key names one instance; rerun it from its page', 'error');
      return;
    }
    if (filters.namespace) {
      notify('rerun: the server reruns by job, status and time, not by namespace; clear the namespace filter or'
        + ' pick a job', 'error');
      return;
    }
    const dry = await call('POST', '/api/instances/rerun', { ...body, dryRun: true });
    if (!dry.ok) { failed(dry); return; }
    const count = dry.body.matched + (dry.body.more ? '+' : '');
    fill(box,
      el('button', { type: 'button', class: 'confirm-rerun danger', onclick: async () => {
        const reply = await call('POST', '/api/instances/rerun', body);
        if (!reply.ok) { failed(reply); start(); return; }
        notify(reply.body.created + ' rerun(s) created of ' + reply.body.matched + ' finished instance(s) matched'
          + (reply.body.more ? '; more remain: rerun matching again' : ''), 'ok');
        start();
      } }, 'rerun ' + count + ' finished instance(s)?'),
      el('button', { type: 'button', class: 'keep', onclick: start }, 'keep'));
  }
  start();
  return box;
}

export async function renderInstance(ctx, query, id) {
  const path = '/api/instances/' + encodeURIComponent(id);
  let shown = null;

  async function cancel(button) {
    button.disabled = true;
    const reply = await call('POST', path + '/cancel');
    if (reply.ok) notify('instance ' + id + ' cancelled: it will never be dispatched', 'ok');
    else notify('cancel: ' + (reply.body && reply.body.outcome ? reply.body.outcome + ' (status ' + reply.body.status + ')'
      : messageOf(reply)), 'error');
    button.disabled = false;
    await load();
  }

  async function rerun(button) {
    button.disabled = true;
    const reply = await call('POST', path + '/rerun');
    button.disabled = false;
    if (reply.ok) {
      go(instanceHash(reply.body.instanceId), { message: (reply.body.created ? 'rerun of ' : 'the rerun made before of ')
        + 'instance ' + id });
    } else {
      notify('rerun: ' + messageOf(reply), 'error');
    }
  }

  function draw(i) {
    const lateness = latenessOf(i);
    const job = el('span', {});
    if ('jobName' in i) fill(job, i.jobName === null ? '(deleted job)' : i.jobName);
    else jobName(i.jobId).then((name) => fill(job, name === null ? '(deleted job)' : name || ''));
    fill(ctx.root,
      el('div', { class: 'toolbar' },
        el('h2', {}, 'Instance ', el('span', { id: 'instance-id' }, i.id), ' ', el('span', { id: 'instance-status' }, statusEl(i.status))),
        i.status === 'WAITING' && mayOperate() ? el('button', { type: 'button', id: 'cancel-instance', class: 'danger',
          onclick: (e) => cancel(e.currentTarget) }, 'Cancel') : null,
        UNFINISHED.has(i.status) || !mayOperate() ? null : el('button', { type: 'button', id: 'rerun-instance',
          onclick: (e) => rerun(e.currentTarget) }, 'Rerun'),
        el('a', { class: 'button', href: withQuery('#/instances', { jobId: i.jobId }) }, 'history of this job')),
      el('dl', { class: 'fields' },
        el('dt', {}, 'job'), el('dd', { class: 'job' }, el('a', { href: '#/jobs/' + encodeURIComponent(i.jobId) }, job), ' ',
          el('span', { class: 'muted' }, i.jobId)),
        el('dt', {}, 'status'), el('dd', {}, i.status),
        el('dt', {}, 'key'), el('dd', { class: 'key' }, i.key == null ? '—' : i.key),
        el('dt', {}, 'priority'), el('dd', { class: 'priority' }, i.priority == null ? 'the job\'s' : i.priority),
        el('dt', {}, 'rerun of'), el('dd', { class: 'rerun-of' }, i.rerunOf == null ? '—'
          : el('a', { href: instanceHash(i.rerunOf) }, i.rerunOf)),
        i.workflowRunId == null ? null : [el('dt', {}, 'workflow run'), el('dd', { class: 'workflow-run' },
          ofEveryNamespace() // a token of one namespace cannot open a workflow run
            ? el('a', { href: '#/workflow-runs/' + encodeURIComponent(i.workflowRunId) }, i.workflowRunId)
            : i.workflowRunId,
          ' node ', el('span', { class: 'workflow-node' }, i.workflowNode))],
        el('dt', {}, 'scheduled'), el('dd', {}, i.scheduledTriggerTime ? timeEl(i.scheduledTriggerTime) : 'on demand (run now)'),
        el('dt', {}, 'expected'), el('dd', { class: 'expected' }, timeEl(i.expectedTriggerTime)),
        el('dt', {}, 'actual'), el('dd', { class: 'actual' }, timeEl(i.actualTriggerTime)),
        el('dt', {}, 'lateness'), el('dd', { class: 'lateness' }, lateness === null ? '—' : durationText(lateness)),
        el('dt', {}, 'callback due'), el('dd', { class: 'callback-deadline' }, i.callbackDeadline
          ? timeEl(i.callbackDeadline) : '—'),
        el('dt', {}, 'attempt'), el('dd', { class: 'attempt' }, i.attempt),
        el('dt', {}, 'node'), el('dd', { class: 'node' }, i.claimNode == null ? '—' : i.claimNode),
        el('dt', {}, 'epoch'), el('dd', { class: 'epoch' }, i.claimEpoch == null ? '—' : i.claimEpoch),
        el('dt', {}, 'shard'), el('dd', {}, i.shard),
        el('dt', {}, 'created'), el('dd', {}, timeEl(i.createdAt)),
        el('dt', {}, 'updated'), el('dd', {}, timeEl(i.updatedAt))),
      el('h3', {}, 'Error'),
      i.error ? el('pre', { class: 'instance-error' }, i.error) : el('p', { class: 'muted no-error' }, 'none'),
      el('h3', {}, 'Params'),
      i.params == null ? el('p', { class: 'muted' }, 'none') : el('pre', { class: 'params' }, jsonText(i.params)),
      el('h3', {}, 'Output'),
      i.output === undefined ? el('p', { class: 'muted no-output' }, 'none')
        : el('pre', { class: 'instance-output' }, jsonText(i.output)),
      el('h3', {}, 'Attempts'),
      Array.isArray(i.attempts) ? attemptsTable(i.attempts)
        : el('p', { class: 'muted' }, 'this server does not report attempts one by one'));
  }

  async function load() {
    const reply = await call('GET', path);
    if (!ctx.alive()) return;
    if (!reply.ok) {
      ctx.refused('Instance ' + id, messageOf(reply), '#/instances', 'History');
      return;
    }
    const text = JSON.stringify(reply.body);
    if (text !== shown) {
      shown = text;
      draw(reply.body);
    }
    ctx.ready();
    return reply.body;
  }

  const first = await load();
  // Waiting and running instances change on their own; a finished one does not.
  ctx.every(REFRESH_MS, async () => {
    if (shown === null || UNFINISHED.has(JSON.parse(shown).status)) await load();
  });
  return first;
}
