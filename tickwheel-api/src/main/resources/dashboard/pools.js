// #/pools: the pools that jobs share, read-only (create, replace and delete them through the API): name, namespace,
// the concurrency limit, the rate ("50 per 1000 ms") and when each was created. A namespace's token lists its own.
'use strict';

import { el, fill, timeEl } from './dom.js';
import { read } from './api.js';

/** {permits: 50, perMs: 1000} -> "50 per 1000 ms"; none -> a muted dash. */
function rateText(rate) {
  return rate ? rate.permits + ' per ' + rate.perMs + ' ms' : el('span', { class: 'muted' }, '—');
}

function poolRow(pool) {
  return el('tr', { 'data-pool': pool.name, 'data-namespace': pool.namespace },
    el('td', { class: 'pool-name' }, pool.name),
    el('td', { class: 'pool-namespace' }, pool.namespace),
    el('td', { class: 'pool-max-concurrent' }, pool.maxConcurrent > 0 ? String(pool.maxConcurrent) : 'no limit'),
    el('td', { class: 'pool-rate' }, rateText(pool.rate)),
    el('td', { class: 'pool-created' }, timeEl(pool.createdAt)));
}

export async function renderList(ctx) {
  const page = await read('/api/pools');
  if (!ctx.alive()) return;
  fill(ctx.root,
    el('div', { class: 'toolbar' }, el('h2', {}, 'Pools'),
      el('span', { class: 'muted' }, 'shared by the jobs that name them; changed through the API (/api/pools)')),
    el('table', { id: 'pools' },
      el('thead', {}, el('tr', {}, ['name', 'namespace', 'max concurrent', 'rate', 'created']
        .map((h) => el('th', {}, h)))),
      el('tbody', {}, page.items.length ? page.items.map(poolRow)
        : el('tr', { class: 'empty' }, el('td', { colspan: 5 }, 'No pools yet.')))));
  ctx.ready();
}
