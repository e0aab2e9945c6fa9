// Building DOM nodes without ever parsing data as HTML: every string becomes a text node (textContent) or an
// attribute value (setAttribute), so a job named "<img onerror=…>" shows as those characters and runs nothing.
'use strict';

/** Properties set as properties, not attributes (their attribute only gives the initial state). */
const PROPERTIES = new Set(['value', 'checked', 'disabled', 'hidden', 'selected', 'open']);

/**
 * el('a', {href: '#/jobs', class: 'x', onclick: fn}, 'text', otherNode, [more, children]).
 * Keys starting with "on" add event listeners; null, undefined and false attributes and children are left out.
 */
export function el(tag, attrs = {}, ...children) {
  return build(document.createElement(tag), attrs, children);
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** el() for SVG: svg('rect', {x: 0, y: 0, width: 10, height: 10, class: 'x'}); the same rules for attributes and text. */
export function svg(tag, attrs = {}, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

function build(node, attrs, children) {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (PROPERTIES.has(key)) node[key] = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces the children of node. */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/** A time in the browser's zone, with the UTC ISO string on hover. */
export function timeEl(iso) {
  if (!iso) return el('span', { class: 'muted' }, '—');
  const date = new Date(iso);
  return el('time', { datetime: iso, title: iso }, Number.isNaN(date.getTime()) ? iso : date.toLocaleString());
}

/** 1234 -> "1.234 s", 12 -> "12 ms", 90061000 -> "1 d 1 h 1 min". */
export function durationText(ms) {
  if (ms === null || ms === undefined || ms === '') return '';
  const n = Number(ms);
  if (!Number.isFinite(n)) return String(ms);
  const abs = Math.abs(n);
  if (abs < 1000) return n + ' ms';
  if (abs < 60000) return (n / 1000).toFixed(abs < 10000 ? 3 : 1) + ' s';
  const parts = [];
  let rest = Math.round(abs / 1000);
  for (const [unit, seconds] of [['d', 86400], ['h', 3600], ['min', 60], ['s', 1]]) {
    if (rest >= seconds) {
      parts.push(Math.floor(rest / seconds) + ' ' + unit);
      rest %= seconds;
    }
  }
  return (n < 0 ? '-' : '') + parts.slice(0, 3).join(' ');
}

/** One line saying when a job runs. */
export function scheduleSummary(s) {
  if (!s) return '';
  switch (s.type) {
    case 'CRON': return 'cron ' + s.expression + (s.zone ? ' (' + s.zone + ')' : '');
    case 'FIXED_RATE': return 'every ' + durationText(s.periodMs) + (s.at ? ' from ' + new Date(s.at).toLocaleString() : '');
    case 'FIXED_DELAY': return durationText(s.delayMs) + ' after each run';
    case 'ONE_SHOT': return 'once at ' + new Date(s.at).toLocaleString();
    case 'API': return 'on demand (API)';
    default: return String(s.type);
  }
}

/** One line saying where a job's instances go. */
export function targetSummary(t) {
  if (!t) return '';
  return t.type === 'WEBHOOK' ? t.url : 'handler ' + t.name;
}

export function statusEl(status) {
  return el('span', { class: 'status status-' + status }, status);
}

/** A value as pretty JSON text (for a <pre>); '' for none. */
export function jsonText(value) {
  return value === null || value === undefined ? '' : JSON.stringify(value, null, 2);
}

/** "2026-11-25T10:00:00Z" -> "2026-11-25T11:00:00" in the browser's zone, for a datetime-local input. */
export function toLocalInput(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n, width = 2) => String(n).padStart(width, '0');
  return date.getFullYear() + '-' + pad(date.getMonth() + 1) + '-' + pad(date.getDate()) + 'T'
    + pad(date.getHours()) + ':' + pad(date.getMinutes()) + ':' + pad(date.getSeconds());
}

/**
 * A datetime-local value (the browser's zone, no offset) -> an ISO UTC string; null when empty or invalid.
 * new Date("2026-11-25T11:00") reads a date-time without offset as local time (ECMAScript Date.parse).
 */
export function fromLocalInput(value) {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
