// Tickwheel console: the entry point. No build chain, no libraries, ES modules served as they are.
// IDs are strings everywhere (64-bit IDs do not fit a JavaScript number). Data only ever reaches the page as text
// (dom.js): nothing the server returns is parsed as HTML.
'use strict';

import { addRoute, start } from './router.js';
import { call } from './api.js';
import * as overview from './overview.js';
import * as jobs from './jobs.js';
import * as jobForm from './job-form.js';
import * as instances from './instances.js';
import * as pools from './pools.js';
import * as workflows from './workflows.js';

const HEALTH_MS = 5000;

addRoute(/^\/$/, overview.render);
addRoute(/^\/jobs$/, jobs.renderList);
addRoute(/^\/jobs\/new$/, (ctx, query) => jobForm.render(ctx, query, null));
addRoute(/^\/jobs\/(\d+)\/edit$/, jobForm.render);
addRoute(/^\/jobs\/(\d+)$/, jobs.renderJob);
addRoute(/^\/instances$/, instances.renderHistory);
addRoute(/^\/instances\/(\d+)$/, instances.renderInstance);
addRoute(/^\/pools$/, pools.renderList);
addRoute(/^\/workflows$/, workflows.renderList);
addRoute(/^\/workflows\/new$/, workflows.renderNew);
addRoute(/^\/workflows\/(\d+)$/, workflows.renderWorkflow);
addRoute(/^\/workflow-runs\/(\d+)$/, workflows.renderRun);

async function refreshHealth() {
  const { status, body } = await call('GET', '/health');
  const badge = document.getElementById('health');
  badge.textContent = status === 200 ? 'UP' : status === 0 ? 'unreachable' : 'DOWN';
  badge.className = 'badge ' + (status === 200 ? 'up' : 'down');
  badge.title = body && body.store ? 'store ' + body.store + ', wheels ' + body.wheels : '';
  document.getElementById('updated').textContent = 'checked ' + new Date().toLocaleTimeString();
}

refreshHealth();
setInterval(refreshHealth, HEALTH_MS);
start();
