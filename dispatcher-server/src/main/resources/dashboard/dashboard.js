// Tickwheel dashboard: polls /metrics, /api/cluster, /api/jobs and /api/instances every REFRESH_MS and redraws.
// No build chain, no libraries. IDs are strings (64-bit IDs do not fit a JavaScript number).
'use strict';

const REFRESH_MS = 2000;
const RECENT_LIMIT = 30;
const state = { lastFired: null, lastAt: null, recent: new Map() };

const $ = (id) => document.getElementById(id);
const tokenInput = $('token');
tokenInput.value = sessionStorage.getItem('tickwheel-token') || '';
tokenInput.addEventListener('change', () => sessionStorage.setItem('tickwheel-token', tokenInput.value));

async function call(method, path) {
  const headers = {};
  if (tokenInput.value) headers['Authorization'] = 'Bearer ' + tokenInput.value;
  const response = await fetch(path, { method, headers });
  const text = await response.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch (e) { body = text; }
  return { status: response.status, body };
}

function parseMetrics(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = line.match(/^([a-zA-Z_:][\w:]*)(\{([^}]*)\})?\s+(\S+)/);
    if (!m) continue;
    const labels = {};
    (m[3] || '').replace(/(\w+)="([^"]*)"/g, (_, k, v) => { labels[k] = v; });
    samples.push({ name: m[1], labels, value: Number(m[4]) });
  }
  return samples;
}

function sample(samples, name, labels = {}) {
  const s = samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v));
  return s ? s.value : NaN;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'onclick') node.addEventListener('click', v); else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child instanceof Node ? child : String(child == null ? '' : child));
  return node;
}

function time(iso) {
  return iso ? new Date(iso).toLocaleTimeString() : '';
}

function schedule(s) {
  switch (s.type) {
    case 'CRON': return 'cron ' + s.expression + (s.zone ? ' (' + s.zone + ')' : '');
    case 'FIXED_RATE': return 'every ' + s.periodMs + ' ms';
    case 'FIXED_DELAY': return s.delayMs + ' ms after each run';
    case 'ONE_SHOT': return 'once at ' + s.at;
    default: return 'on demand (API)';
  }
}

async function refreshMetrics() {
  const response = await fetch('/metrics');
  const samples = parseMetrics(await response.text());
  $('pending-precise').textContent = sample(samples, 'tickwheel_wheel_pending', { wheel: 'precise' });
  $('pending-coarse').textContent = sample(samples, 'tickwheel_wheel_pending', { wheel: 'coarse' });
  $('queue-depth').textContent = sample(samples, 'tickwheel_dispatch_queue_depth');
  const fired = sample(samples, 'tickwheel_timer_fired_total', { wheel: 'precise' });
  const now = performance.now();
  if (state.lastFired !== null && now > state.lastAt) {
    $('fires-per-second').textContent = ((fired - state.lastFired) * 1000 / (now - state.lastAt)).toFixed(1);
  }
  state.lastFired = fired;
  state.lastAt = now;
  const buckets = samples.filter((s) => s.name === 'tickwheel_fire_lateness_seconds_bucket');
  const histogram = $('lateness');
  histogram.replaceChildren();
  let previous = 0;
  const counts = buckets.map((b) => { const c = b.value - previous; previous = b.value; return c; });
  const max = Math.max(1, ...counts);
  buckets.forEach((b, i) => {
    const le = b.labels.le === '+Inf' ? '>' : (Number(b.labels.le) * 1000) + ' ms';
    const bar = el('div', { class: 'bar', title: counts[i] + ' fires' },
      counts[i]);
    const fill = el('div', { class: 'fill' });
    fill.style.height = (100 * counts[i] / max) + '%';
    bar.append(fill, el('span', {}, '≤' + le));
    histogram.append(bar);
  });
}

async function refreshJobs() {
  const { body } = await call('GET', '/api/jobs?limit=200');
  const tbody = $('jobs').querySelector('tbody');
  tbody.replaceChildren();
  for (const job of body.items) {
    const action = job.enabled ? 'disable' : 'enable';
    tbody.append(el('tr', { 'data-job-id': job.id },
      el('td', { class: 'job-name' }, job.name),
      el('td', {}, schedule(job.schedule)),
      el('td', {}, job.target.type === 'WEBHOOK' ? job.target.url : 'handler ' + job.target.name),
      el('td', {}, time(job.nextTriggerTime)),
      el('td', {}, job.enabled ? 'yes' : 'no'),
      el('td', {}, el('button', { class: 'toggle', onclick: () => act('POST', '/api/jobs/' + job.id + '/' + action) },
        action))));
  }
}

async function refreshInstances() {
  // Instances still waiting, plus those shown before (re-read by ID so their new status appears).
  const { body } = await call('GET', '/api/instances?status=WAITING&limit=' + RECENT_LIMIT);
  for (const instance of body.items) state.recent.set(instance.id, instance);
  const stale = [...state.recent.values()].filter((i) => !body.items.some((w) => w.id === i.id));
  await Promise.all(stale.map(async (i) => {
    const reply = await call('GET', '/api/instances/' + i.id);
    if (reply.status === 200) state.recent.set(i.id, reply.body); else state.recent.delete(i.id);
  }));
  const rows = [...state.recent.values()]
    .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1))
    .slice(0, RECENT_LIMIT * 2);
  state.recent = new Map(rows.map((r) => [r.id, r]));
  const tbody = $('instances').querySelector('tbody');
  tbody.replaceChildren();
  for (const i of rows) {
    const cancel = i.status === 'WAITING'
      ? el('button', { class: 'cancel', onclick: () => cancelInstance(i.id) }, 'cancel') : '';
    tbody.append(el('tr', { 'data-instance-id': i.id },
      el('td', {}, i.id), el('td', {}, i.jobId),
      el('td', { class: 'status status-' + i.status }, i.status),
      el('td', {}, time(i.expectedTriggerTime)), el('td', {}, time(i.actualTriggerTime)),
      el('td', {}, i.attempt), el('td', {}, i.error || ''),
      el('td', {}, cancel)));
  }
}

async function refreshCluster() {
  const { status, body } = await call('GET', '/api/cluster');
  if (status !== 200) return;
  const epochs = new Map();
  for (const shard of body.shards) {
    if (shard.nodeId < 0) continue;
    const range = epochs.get(shard.nodeId) || { min: shard.epoch, max: shard.epoch, oldestMs: 0 };
    range.min = Math.min(range.min, shard.epoch);
    range.max = Math.max(range.max, shard.epoch);
    range.oldestMs = Math.max(range.oldestMs, shard.heldForMs);
    epochs.set(shard.nodeId, range);
  }
  const tbody = $('cluster').querySelector('tbody');
  tbody.replaceChildren();
  for (const node of body.nodes.filter((n) => n.live || n.heartbeatAgeMs < 600000)) {
    const range = epochs.get(node.nodeId);
    tbody.append(el('tr', { 'data-node-id': node.nodeId, class: node.self ? 'self' : '' },
      el('td', {}, node.nodeId + (node.self ? ' (this server)' : '')), el('td', {}, node.description),
      el('td', { class: node.live ? 'status-SUCCEEDED' : 'status-FAILED' }, node.live ? 'yes' : 'no'),
      el('td', {}, node.shardsHeld + ' / ' + body.shardCount),
      el('td', {}, (node.heartbeatAgeMs / 1000).toFixed(1) + ' s'),
      el('td', { title: node.startedAt }, time(node.startedAt)),
      el('td', { title: range ? 'oldest lease held ' + (range.oldestMs / 1000).toFixed(0) + ' s' : '' },
        range ? range.min + (range.max > range.min ? '–' + range.max : '') : '')));
  }
}

async function refreshHealth() {
  const { status } = await call('GET', '/health');
  const badge = $('health');
  badge.textContent = status === 200 ? 'UP' : 'DOWN';
  badge.className = 'badge ' + (status === 200 ? 'up' : 'down');
}

async function act(method, path) {
  const reply = await call(method, path);
  $('message').textContent = method + ' ' + path + ': ' + reply.status
    + (reply.body && reply.body.message ? ' ' + reply.body.message : '');
  await refresh();
  return reply;
}

async function cancelInstance(id) {
  const reply = await act('POST', '/api/instances/' + id + '/cancel');
  if (reply.body && reply.body.outcome) $('message').textContent = 'instance ' + id + ': ' + reply.body.outcome;
}

let running = false;
async function refresh() {
  if (running) return;
  running = true;
  try {
    await Promise.all([refreshHealth(), refreshMetrics(), refreshCluster(), refreshJobs(), refreshInstances()]);
    $('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
  } catch (e) {
    $('updated').textContent = 'refresh failed: ' + e;
  } finally {
    running = false;
  }
}

refresh();
setInterval(refresh, REFRESH_MS);
