// #/ : live figures from /metrics (whole-server counts, never derived from a page of jobs), the fire-lateness
// histogram and the cluster (for a token of every namespace: /api/cluster needs one), redrawn every REFRESH_MS.
'use strict';

import { el, fill, timeEl } from './dom.js';
import { call, url, authHeaders } from './api.js';
import { ofEveryNamespace } from './session.js';

const REFRESH_MS = 2000;

const TILES = [
  ['pending-precise', 'pending, precise wheel'],
  ['pending-coarse', 'pending, coarse wheel'],
  ['fires-per-second', 'fires per second'],
  ['queue-depth', 'dispatch queue'],
  ['calls-in-flight', 'calls in flight'],
  ['calls-waiting', 'waiting for a call slot'],
  ['dispatched-ok', 'succeeded attempts'],
  ['dispatched-failed', 'failed attempts'],
];

/** Prometheus text -> [{name, labels, value}]. */
export function parseMetrics(text) {
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

function matching(samples, name, labels) {
  return samples.filter((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v));
}

/** The sum of every series of name whose labels include labels; NaN when there is none. */
function total(samples, name, labels = {}) {
  const found = matching(samples, name, labels);
  return found.length ? found.reduce((sum, s) => sum + s.value, 0) : NaN;
}

function shown(value) {
  return Number.isNaN(value) ? '–' : String(value);
}

/** A bucket bound in seconds -> "5 ms" or "1.5 s". */
function boundText(seconds) {
  const ms = seconds * 1000;
  return ms < 1000 ? Number(ms.toPrecision(6)) + ' ms' : Number(seconds.toPrecision(6)) + ' s';
}

/**
 * The lateness histogram: one bar per bucket with the fires that fell in it (buckets are cumulative in Prometheus).
 * Labels read "≤ 5 ms"; the +Inf bucket reads "> 15 s" after the last finite bound.
 */
function drawHistogram(node, samples) {
  const buckets = matching(samples, 'tickwheel_fire_lateness_seconds_bucket', {})
    .map((b) => ({ le: b.labels.le === '+Inf' ? Infinity : Number(b.labels.le), cumulative: b.value }))
    .sort((a, b) => a.le - b.le);
  let previous = 0;
  const counts = buckets.map((b) => { const c = b.cumulative - previous; previous = b.cumulative; return c; });
  const max = Math.max(1, ...counts);
  const lastBound = buckets.filter((b) => Number.isFinite(b.le)).map((b) => b.le).pop();
  fill(node, ...buckets.map((b, i) => {
    const label = Number.isFinite(b.le) ? '≤ ' + boundText(b.le)
      : lastBound === undefined ? 'all' : '> ' + boundText(lastBound);
    const fillBar = el('div', { class: 'fill' });
    fillBar.style.height = (100 * counts[i] / max) + '%';
    return el('div', { class: 'bar', title: counts[i] + ' fires ' + label },
      el('span', { class: 'count' }, counts[i]), fillBar, el('span', { class: 'le' }, label));
  }));
}

export async function render(ctx) {
  const tiles = new Map();
  const histogram = el('div', { id: 'lateness', class: 'histogram' });
  const cluster = el('tbody');
  fill(ctx.root,
    el('section', { class: 'tiles' }, TILES.map(([id, label]) => {
      const value = el('div', { id, class: 'value' }, '–');
      tiles.set(id, value);
      return el('div', { class: 'tile' }, el('div', { class: 'label' }, label), value);
    })),
    el('section', {}, el('h2', {}, 'Fire lateness'), histogram),
    !ofEveryNamespace() ? null : el('section', {}, el('h2', {}, 'Cluster'), el('table', { id: 'cluster' },
      el('thead', {}, el('tr', {}, ['node', 'host', 'live', 'shards held', 'heartbeat age', 'started', 'epochs']
        .map((h) => el('th', {}, h)))),
      cluster)));

  let lastFired = null;
  let lastAt = null;
  async function refreshMetrics() {
    // Open by default; with --open-health false it needs a token like any read.
    const reply = await fetch(url('/metrics'), { headers: authHeaders() });
    const samples = parseMetrics(await reply.text());
    if (!ctx.alive()) return;
    const set = (id, value) => { tiles.get(id).textContent = shown(value); };
    set('pending-precise', total(samples, 'tickwheel_wheel_pending', { wheel: 'precise' }));
    set('pending-coarse', total(samples, 'tickwheel_wheel_pending', { wheel: 'coarse' }));
    set('queue-depth', total(samples, 'tickwheel_dispatch_queue_depth'));
    set('calls-in-flight', total(samples, 'tickwheel_calls_in_flight'));
    set('calls-waiting', total(samples, 'tickwheel_calls_waiting'));
    set('dispatched-ok', total(samples, 'tickwheel_dispatch_total', { outcome: 'success' }));
    set('dispatched-failed', total(samples, 'tickwheel_dispatch_total', { outcome: 'failure' }));
    const fired = total(samples, 'tickwheel_timer_fired_total', { wheel: 'precise' });
    const now = performance.now();
    if (lastFired !== null && now > lastAt) {
      tiles.get('fires-per-second').textContent = ((fired - lastFired) * 1000 / (now - lastAt)).toFixed(1);
    }
    lastFired = fired;
    lastAt = now;
    drawHistogram(histogram, samples);
  }

  async function refreshCluster() {
    const { status, body } = await call('GET', '/api/cluster');
    if (status !== 200 || !ctx.alive()) return;
    const epochs = new Map();
    for (const shard of body.shards) {
      if (shard.nodeId < 0) continue;
      const range = epochs.get(shard.nodeId) || { min: shard.epoch, max: shard.epoch, oldestMs: 0 };
      range.min = Math.min(range.min, shard.epoch);
      range.max = Math.max(range.max, shard.epoch);
      range.oldestMs = Math.max(range.oldestMs, shard.heldForMs);
      epochs.set(shard.nodeId, range);
    }
    fill(cluster, body.nodes.filter((n) => n.live || n.heartbeatAgeMs < 600000).map((node) => {
      const range = epochs.get(node.nodeId);
      return el('tr', { 'data-node-id': node.nodeId, class: node.self ? 'self' : '' },
        el('td', {}, node.nodeId + (node.self ? ' (this server)' : '')), el('td', {}, node.description),
        el('td', { class: node.live ? 'status-SUCCEEDED' : 'status-FAILED' }, node.live ? 'yes' : 'no'),
        el('td', {}, node.shardsHeld + ' / ' + body.shardCount),
        el('td', {}, (node.heartbeatAgeMs / 1000).toFixed(1) + ' s'),
        el('td', {}, timeEl(node.startedAt)),
        el('td', { title: range ? 'oldest lease held ' + (range.oldestMs / 1000).toFixed(0) + ' s' : '' },
          range ? range.min + (range.max > range.min ? '–' + range.max : '') : ''));
    }));
  }

  const refresh = () => Promise.all([refreshMetrics(), ofEveryNamespace() ? refreshCluster() : null]);
  await refresh();
  ctx.ready();
  ctx.every(REFRESH_MS, refresh);
}
