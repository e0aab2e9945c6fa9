// #/workflows (every workflow: name, nodes, edges, created), #/workflows/new (a workflow typed as JSON),
// #/workflows/<id> (its graph, its nodes with their jobs, its edges, and Run with an optional key and params) and
// #/workflow-runs/<id> (a run: status, key, params, the graph with each node's status and a link to its instance, and
// Cancel while RUNNING; refreshed while anything in it can still change). A workflow never changes once created.
// A namespace's token sees its namespace's workflows (the server's answer); New workflow is drawn for an ADMIN token, Run and
// Cancel for an OPERATE or ADMIN one.
'use strict';

import { el, fill, timeEl, statusEl, jsonText } from './dom.js';
import { call, read, messageOf, errorField, jobName } from './api.js';
import { go, notify } from './router.js';
import { dagSvg } from './dag.js';
import { onRunSubmit } from './jobs.js';
import { mayOperate, mayAdmin } from './session.js';

const REFRESH_MS = 2000;
/** Node statuses that still change. A cancelled run's DISPATCHING instance runs to its end, so a run over can have one. */
const NODE_UNFINISHED = new Set(['PENDING', 'WAITING', 'DISPATCHING']);

/** What #/workflows/new starts from: two nodes and an edge, job ids to fill in. */
const TEMPLATE = {
  name: 'nightly export',
  nodes: [{ id: 'extract', jobId: '' }, { id: 'load', jobId: '' }],
  edges: [{ from: 'extract', to: 'load', on: 'SUCCEEDED' }],
};

function workflowHash(id) {
  return '#/workflows/' + encodeURIComponent(id);
}

function runHash(id) {
  return '#/workflow-runs/' + encodeURIComponent(id);
}

function headRow(...names) {
  return el('thead', {}, el('tr', {}, names.map((h) => el('th', {}, h))));
}

/** The name of each job the workflow's nodes run, by job id: a name, null for a deleted job, undefined if not known. */
async function jobNamesOf(workflow) {
  const ids = [...new Set(workflow.nodes.map((n) => n.jobId))];
  return new Map(await Promise.all(ids.map(async (id) => [id, await jobName(id)])));
}

function jobText(names, jobId) {
  const name = names.get(jobId);
  return name === null ? '(deleted job)' : name === undefined ? 'job ' + jobId : name;
}

function jobLink(names, jobId) {
  return el('a', { href: '#/jobs/' + encodeURIComponent(jobId), title: 'job ' + jobId }, jobText(names, jobId));
}

export async function renderList(ctx) {
  const page = await read('/api/workflows');
  if (!ctx.alive()) return;
  fill(ctx.root,
    el('div', { class: 'toolbar' }, el('h2', {}, 'Workflows'),
      el('span', { class: 'muted' }, 'DAGs of jobs; a workflow is not changed once created'),
      mayAdmin() ? el('a', { class: 'button primary', id: 'new-workflow', href: '#/workflows/new' }, 'New workflow')
        : null),
    el('table', { id: 'workflows' }, headRow('name', 'nodes', 'edges', 'created'),
      el('tbody', {}, page.items.length ? page.items.map((w) => el('tr', { 'data-workflow-id': w.id },
        el('td', { class: 'workflow-name' }, el('a', { href: workflowHash(w.id) }, w.name)),
        el('td', { class: 'workflow-nodes' }, w.nodes.length),
        el('td', { class: 'workflow-edges' }, w.edges.length),
        el('td', {}, timeEl(w.createdAt))))
        : el('tr', { class: 'empty' }, el('td', { colspan: 4 }, 'No workflows yet.')))));
  ctx.ready();
}

/** The run form: an optional key (the same key answers the run it made before) and params for every node's instance. */
function runForm(workflow, onClose) {
  const key = el('input', { name: 'key', maxlength: 200, size: 24, autocomplete: 'off',
    placeholder: 'none: a new run each time' });
  const params = el('textarea', { name: 'params', rows: 3,
    placeholder: 'JSON, e.g. {"order": 5}; empty: each job\'s params' });
  const errors = {
    key: el('span', { class: 'field-error', 'data-error-for': 'key' }),
    params: el('span', { class: 'field-error', 'data-error-for': 'params' }),
  };
  const result = el('div', { class: 'run-result' });
  const form = el('form', { class: 'run-form', id: 'workflow-run-form' },
    el('label', {}, 'key ', key, errors.key),
    el('label', {}, 'params ', params, errors.params),
    el('button', { type: 'submit', class: 'primary run-submit' }, 'Run'),
    el('button', { type: 'button', class: 'run-close', onclick: onClose }, 'Close'),
    result);
  onRunSubmit(form, { params, errors, result }, (body) => {
    if (key.value.trim()) body.key = key.value.trim();
    return call('POST', '/api/workflows/' + encodeURIComponent(workflow.id) + '/run', body);
  }, (run) => [run.created === false ? 'the run made before with this key: ' : 'run ',
    el('a', { class: 'workflow-run-link', href: runHash(run.id) }, run.id), ' ', statusEl(run.status)]);
  return form;
}

export async function renderWorkflow(ctx, query, id) {
  const reply = await call('GET', '/api/workflows/' + encodeURIComponent(id));
  if (!ctx.alive()) return;
  if (!reply.ok) {
    ctx.refused('Workflow ' + id, messageOf(reply), '#/workflows', 'All workflows');
    return;
  }
  const workflow = reply.body;
  const names = await jobNamesOf(workflow);
  if (!ctx.alive()) return;
  const runBox = el('div', { class: 'run-box' });
  const showRun = () => fill(runBox, runForm(workflow, () => fill(runBox)));
  fill(ctx.root,
    el('div', { class: 'toolbar' }, el('h2', { id: 'workflow-title' }, workflow.name),
      mayOperate() ? el('button', { type: 'button', id: 'run-workflow', class: 'primary',
        onclick: () => (runBox.firstChild ? fill(runBox) : showRun()) }, 'Run…') : null),
    runBox,
    el('dl', { class: 'fields' },
      el('dt', {}, 'id'), el('dd', {}, workflow.id),
      el('dt', {}, 'nodes'), el('dd', {}, workflow.nodes.length),
      el('dt', {}, 'edges'), el('dd', {}, workflow.edges.length),
      el('dt', {}, 'created'), el('dd', {}, timeEl(workflow.createdAt))),
    el('div', { class: 'dag-box' }, dagSvg(workflow, (node) => ({
      detail: jobText(names, node.jobId),
      href: '#/jobs/' + encodeURIComponent(node.jobId),
      title: node.id + ': runs job ' + jobText(names, node.jobId) + ' (' + node.jobId + ')',
    }))),
    el('h3', {}, 'Nodes'),
    el('table', { id: 'workflow-nodes' }, headRow('node', 'job', 'job id'),
      el('tbody', {}, workflow.nodes.map((n) => el('tr', { 'data-node': n.id },
        el('td', { class: 'node' }, n.id), el('td', { class: 'job' }, jobLink(names, n.jobId)),
        el('td', { class: 'muted' }, n.jobId))))),
    el('h3', {}, 'Edges'),
    el('table', { id: 'workflow-edges' }, headRow('from', 'to', 'on'),
      el('tbody', {}, workflow.edges.length ? workflow.edges.map((e) => el('tr', { 'data-from': e.from, 'data-to': e.to },
        el('td', {}, e.from), el('td', {}, e.to), el('td', { class: 'on' }, e.on)))
        : el('tr', { class: 'empty' }, el('td', { colspan: 3 }, 'None: every node starts with the run.')))),
    el('p', { class: 'muted' }, 'A node starts once every edge into it holds on its parent\'s end: SUCCEEDED, FAILED'
      + ' (or INTERRUPTED), ALWAYS (any end); it is SKIPPED when one cannot. This server lists no runs of a workflow:'
      + ' a run is reached from Run, or from the page of one of its instances.'));
  if (query.run && mayOperate()) showRun();
  ctx.ready();
}

export async function renderRun(ctx, query, id) {
  const path = '/api/workflow-runs/' + encodeURIComponent(id);
  let workflow = null;
  let names = null;
  let shown = null;

  async function cancel(button) {
    button.disabled = true;
    const reply = await call('POST', path + '/cancel');
    if (!reply.ok) notify('cancel: ' + messageOf(reply), 'error');
    else if (reply.body.status === 'CANCELLED') {
      notify('workflow run ' + id + ' cancelled: its pending nodes are skipped and its waiting instances cancelled;'
        + ' a call under way runs to its end', 'ok');
    } else notify('workflow run ' + id + ' was over already: ' + reply.body.status, 'error');
    button.disabled = false;
    await load();
  }

  function draw(run) {
    const nodes = new Map(run.nodes.map((n) => [n.id, n]));
    const nodeOf = (id) => nodes.get(id) || { id, status: 'PENDING', instanceId: null };
    const instanceHash = (instanceId) => '#/instances/' + encodeURIComponent(instanceId);
    fill(ctx.root,
      el('div', { class: 'toolbar' },
        el('h2', {}, 'Workflow run ', el('span', { id: 'run-id' }, run.id), ' ', el('span', { id: 'run-status' }, statusEl(run.status))),
        run.status === 'RUNNING' && mayOperate() ? el('button', { type: 'button', id: 'cancel-run', class: 'danger',
          onclick: (e) => cancel(e.currentTarget) }, 'Cancel') : null,
        el('a', { class: 'button', href: workflowHash(workflow.id) }, 'workflow')),
      el('dl', { class: 'fields' },
        el('dt', {}, 'workflow'), el('dd', { class: 'workflow' }, el('a', { href: workflowHash(workflow.id) }, workflow.name),
          ' ', el('span', { class: 'muted' }, workflow.id)),
        el('dt', {}, 'status'), el('dd', {}, run.status),
        el('dt', {}, 'key'), el('dd', { class: 'key' }, run.key == null ? '—' : run.key),
        el('dt', {}, 'created'), el('dd', {}, timeEl(run.createdAt)),
        el('dt', {}, 'updated'), el('dd', {}, timeEl(run.updatedAt))),
      el('div', { class: 'dag-box' }, dagSvg(workflow, (node) => {
        const { status, instanceId } = nodeOf(node.id);
        return { detail: status, status, href: instanceId ? instanceHash(instanceId) : null,
          title: node.id + ': ' + status + ', job ' + jobText(names, node.jobId)
            + (instanceId ? ', instance ' + instanceId : '') };
      })),
      el('h3', {}, 'Params'),
      run.params == null ? el('p', { class: 'muted' }, 'none: each job\'s own')
        : el('pre', { class: 'params' }, jsonText(run.params)),
      el('h3', {}, 'Nodes'),
      el('table', { id: 'workflow-run-nodes' }, headRow('node', 'job', 'status', 'instance'),
        el('tbody', {}, workflow.nodes.map((node) => {
          const { status, instanceId } = nodeOf(node.id);
          return el('tr', { 'data-node': node.id },
            el('td', { class: 'node' }, node.id), el('td', { class: 'job' }, jobLink(names, node.jobId)),
            el('td', { class: 'status' }, statusEl(status)),
            el('td', { class: 'instance' }, instanceId ? el('a', { class: 'instance-link', href: instanceHash(instanceId) },
              instanceId) : el('span', { class: 'muted' }, '—')));
        }))));
  }

  async function load() {
    const reply = await call('GET', path);
    if (!ctx.alive()) return null;
    if (!reply.ok) {
      ctx.refused('Workflow run ' + id, messageOf(reply), '#/workflows', 'Workflows');
      return null;
    }
    if (workflow === null) {
      // Its definition, once: a workflow never changes.
      workflow = await read('/api/workflows/' + encodeURIComponent(reply.body.workflowId));
      names = await jobNamesOf(workflow);
      if (!ctx.alive()) return null;
    }
    const text = JSON.stringify(reply.body);
    if (text !== shown) { // unchanged: keep the page (and what the operator points at)
      shown = text;
      draw(reply.body);
    }
    ctx.ready();
    return reply.body;
  }

  await load();
  ctx.every(REFRESH_MS, async () => {
    const run = shown === null ? null : JSON.parse(shown);
    if (run && (run.status === 'RUNNING' || run.nodes.some((n) => NODE_UNFINISHED.has(n.status)))) await load();
  });
}

/** #/workflows/new: the request as JSON, sent as typed; a refusal shows the field it names and the server's message. */
export async function renderNew(ctx) {
  const definition = el('textarea', { id: 'f-definition', name: 'definition', rows: 18, cols: 72, spellcheck: false,
    value: JSON.stringify(TEMPLATE, null, 2) });
  const problem = el('div', { id: 'form-error', class: 'message error', hidden: true });
  const save = el('button', { type: 'submit', class: 'primary', id: 'save-workflow' }, 'Create');
  const showProblem = (field, message) => {
    fill(problem, field ? el('code', { class: 'error-field' }, field) : null, field ? ': ' : null, message);
    problem.hidden = false;
  };
  const form = el('form', { id: 'workflow-form', novalidate: true },
    problem,
    el('label', { for: 'f-definition' }, 'workflow (JSON)'),
    definition,
    el('p', { class: 'help' }, 'nodes: each an id (letters, digits, ".", "_", "-") and the id of the job it runs;'
      + ' edges: from a parent to a child, "on" its end: SUCCEEDED, FAILED or ALWAYS; no cycle.'
      + ' A workflow cannot be changed once created.'),
    el('div', { class: 'form-actions' }, save, el('a', { class: 'button', href: '#/workflows' }, 'Cancel')));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    problem.hidden = true;
    let body;
    try {
      body = JSON.parse(definition.value);
    } catch (e) {
      showProblem(null, 'not valid JSON: ' + e.message);
      return;
    }
    save.disabled = true;
    const reply = await call('POST', '/api/workflows', body);
    save.disabled = false;
    if (!ctx.alive()) return;
    if (reply.ok) go(workflowHash(reply.body.id), { message: 'workflow "' + reply.body.name + '" created' });
    else showProblem(reply.status === 400 ? errorField(reply) : null, messageOf(reply));
  });
  fill(ctx.root, el('h2', {}, 'New workflow'), form);
  ctx.ready();
  definition.focus();
}
