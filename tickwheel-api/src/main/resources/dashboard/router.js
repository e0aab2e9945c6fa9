// Hash routes: "#/jobs?name=x" -> the jobs view with {name: 'x'}. Each navigation gets a fresh view context whose
// timers and late answers die with it, so a slow reply for a page the operator already left draws nothing.
'use strict';

import { el, fill } from './dom.js';

const routes = [];
const view = document.getElementById('view');
const message = document.getElementById('message');

let current = null;
let gate = null; // a view drawn instead of every route while set (the login state)
let started = false; // start() ran: until then there is no view to redraw
let navigationStartedAt = null; // performance.now() when go() began a navigation not yet drawn
let messageAfterNavigation = null;

/** Timings of the latest navigation, read by the browser tests: {hash, startedAt, renderedAt} in performance.now() ms. */
window.tickwheelTiming = null;

/** Registers a view: pattern is matched against the path part of the hash ("/jobs/123"); groups go to render. */
export function addRoute(pattern, render) {
  routes.push({ pattern, render });
}

/**
 * Draws render(ctx, query) instead of whatever the hash names, on every navigation until setGate(null); each call
 * redraws at once. The login state is one: a link followed while it is shown still shows it.
 */
export function setGate(render) {
  gate = render;
  redraw();
}

/** Draws the current hash's view again (after a login, say), as if it had just been opened. */
export function redraw() {
  if (!started) return;
  navigationStartedAt = performance.now();
  route();
}

/** Navigates to a hash ("#/jobs?name=x"), optionally showing a message on the page it opens. */
export function go(hash, options = {}) {
  navigationStartedAt = performance.now();
  messageAfterNavigation = options.message || null;
  if (location.hash === hash) route(); else location.hash = hash;
}

/** Shows a line (and optional nodes such as a link) under the header until the next navigation or message. */
export function notify(text, kind = 'info', ...nodes) {
  fill(message, text, ...nodes);
  message.className = 'message ' + kind;
  message.hidden = false;
}

function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/';
  const at = raw.indexOf('?');
  const path = at < 0 ? raw : raw.slice(0, at);
  const query = Object.fromEntries(new URLSearchParams(at < 0 ? '' : raw.slice(at + 1)));
  return { path: path.replace(/\/+$/, '') || '/', query };
}

/** Draws the view of the current hash; event is the hashchange (a link or the back button), absent on page load. */
function route(event) {
  if (current) current.leave();
  const { path, query } = parseHash();
  const hash = location.hash || '#/';
  // Both clocks count from the page's time origin: 0 is the start of the page load.
  const startedAt = navigationStartedAt ?? (event && event.timeStamp ? event.timeStamp : 0);
  navigationStartedAt = null;
  const root = el('div', { class: 'page' });
  fill(view, root);
  delete view.dataset.ready;
  if (messageAfterNavigation) {
    notify(messageAfterNavigation);
    messageAfterNavigation = null;
  } else {
    message.hidden = true;
  }
  for (const link of document.querySelectorAll('nav a')) {
    // data-path: the paths (space-separated) under which the link is the current section
    link.classList.toggle('active', link.dataset.path.split(' ')
      .some((section) => path === section || path.startsWith(section + '/')));
  }
  const ctx = new ViewContext(root, hash, startedAt);
  current = ctx;
  if (gate) {
    Promise.resolve(gate(ctx, query)).catch((e) => ctx.fail(e));
    return;
  }
  for (const { pattern, render } of routes) {
    const match = pattern.exec(path);
    if (match) {
      Promise.resolve(render(ctx, query, ...match.slice(1))).catch((e) => ctx.fail(e));
      return;
    }
  }
  fill(root, el('h2', {}, 'Not found'), el('p', {}, 'No page at ' + path + '. '), el('a', { href: '#/' }, 'Overview'));
  ctx.ready();
}

/** What a view gets: its root element, whether it is still shown, timers tied to it, and ready(). */
class ViewContext {
  constructor(root, hash, startedAt) {
    this.root = root;
    this.hash = hash;
    this.startedAt = startedAt;
    this.timers = [];
    this.shown = true;
    this.rendered = false;
  }

  alive() {
    return this.shown;
  }

  leave() {
    this.shown = false;
    this.timers.forEach(clearInterval);
  }

  /** Runs fn every ms while the view is shown; a run never overlaps the previous one. */
  every(ms, fn) {
    let running = false;
    this.timers.push(setInterval(async () => {
      if (running || !this.shown || document.hidden) return;
      running = true;
      try {
        await fn();
      } catch (e) {
        console.warn('refresh failed', e);
      } finally {
        running = false;
      }
    }, ms));
  }

  /** The view's main content is on screen: the tests wait for #view[data-ready] equal to the hash. */
  ready() {
    if (!this.shown) return;
    view.dataset.ready = this.hash;
    if (!this.rendered) {
      this.rendered = true;
      window.tickwheelTiming = { hash: this.hash, startedAt: this.startedAt, renderedAt: performance.now() };
    }
  }

  /** Draws a page that could not be shown: a title, why (the server's message), and a way back. */
  refused(title, why, backHash, backLabel) {
    if (!this.shown) return;
    fill(this.root, el('h2', {}, title), el('p', { class: 'message error' }, why), el('a', { href: backHash }, backLabel));
    this.ready();
  }

  fail(e) {
    if (!this.shown) return;
    this.root.append(el('p', { class: 'message error' }, String(e && e.message ? e.message : e)));
    this.ready();
  }
}

/** Starts routing: draws the current hash now and each new one as it comes. */
export function start() {
  started = true;
  window.addEventListener('hashchange', route);
  route();
}
