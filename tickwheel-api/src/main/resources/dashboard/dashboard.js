// Tickwheel console: the entry point. No build chain, no libraries, ES modules served as they are.
// IDs are strings everywhere (64-bit IDs do not fit a JavaScript number). Data only ever reaches the page as text
// (dom.js): nothing the server returns is parsed as HTML.
'use strict';

import { addRoute, start } from './router.js';
import { call } from './api.js';
import { begin } from './login.js';
import { caller, mayAdmin } from './session.js';
import * as overview from './overview.js';
import * as jobs from './jobs.js';
import * as jobForm from './job-form.js';
import * as instances from './instances.js';
import * as pools from './pools.js';
import * as workflows from './workflows.js';

const HEALTH_MS = 5000;

/**
 * render, for a caller allowed(); any other sees a page saying why, not the server's 403: the navigation shows no
 * link to it, but an address typed or kept still leads there.
 */
function only(allowed, title, why, render) {
  return (ctx, ...args) => (allowed() ? render(ctx, ...args) : ctx.refused(title, why(), '#/', 'Overview'));
}

const admin = (title, render) => only(mayAdmin, title, () => title + ' needs an ADMIN token; this one has role '
  + caller().role + '.', render);

addRoute(/^\/$/, overview.render);
addRoute(/^\/jobs$/, jobs.renderList);
addRoute(/^\/jobs\/new$/, admin('Creating a job', (ctx, query) => jobForm.render(ctx, query, null)));
addRoute(/^\/jobs\/(\d+)\/edit$/, admin('Editing a job', jobForm.render));
addRoute(/^\/jobs\/(\d+)$/, jobs.renderJob);
addRoute(/^\/instances$/, instances.renderHistory);
addRoute(/^\/instances\/(\d+)$/, instances.renderInstance);
// Pools belong to namespaces: a namespace's token sees its own, a token of every namespace sees all.
addRoute(/^\/pools$/, pools.renderList);
// A workflow is in the namespace of its jobs: a namespace's token sees its own (the server answers the others 404).
addRoute(/^\/workflows$/, workflows.renderList);
addRoute(/^\/workflows\/new$/, admin('Creating a workflow', workflows.renderNew));
addRoute(/^\/workflows\/(\d+)$/, workflows.renderWorkflow);
addRoute(/^\/workflow-runs\/(\d+)$/, workflows.renderRun);
// Pages of admins only, loaded when first opened: every other page load is spared their files.
addRoute(/^\/tokens$/, admin('The tokens page', async (...args) => (await import('./tokens.js')).renderList(...args)));
addRoute(/^\/audit$/, admin('The audit trail', async (...args) => (await import('./audit.js')).renderList(...args)));

async function refreshHealth() {
  const { status, body } = await call('GET', '/health');
  const badge = document.getElementById('health');
  badge.textContent = status === 200 ? 'UP' : status === 0 ? 'unreachable' : status === 401 ? 'needs a token' : 'DOWN';
  badge.className = 'badge ' + (status === 200 ? 'up' : 'down');
  badge.title = body && body.store ? 'store ' + body.store + ', wheels ' + body.wheels : '';
  document.getElementById('updated').textContent = 'checked ' + new Date().toLocaleTimeString();
}

await begin();
refreshHealth();
setInterval(refreshHealth, HEALTH_MS);
start();
