// A workflow's DAG as SVG, left to right: a node's column is the longest path to it from a root (a node no edge leads
// into), so every edge points right; within a column nodes follow the mean row of their parents. Edges are curves with
// an arrow, labelled with their condition (SUCCEEDED, FAILED, ALWAYS). Every string goes in as text (dom.js).
'use strict';

import { svg } from './dom.js';

const NODE_W = 170;
const NODE_H = 46;
const GAP_X = 110;
const GAP_Y = 24;
const PAD = 12;
const TEXT_CHARS = 24; // what fits in a box at 12px; the whole text is in the node's tooltip

/**
 * Where each node goes: {place: Map id -> {column, row}, sizes: the number of nodes in each column}. Edges naming
 * unknown nodes are left out; the server refuses cycles, and a node on one (never here) would stay in the first column.
 * Every column has a node: one in column k has a parent in column k - 1.
 */
export function layout(nodes, edges) {
  const ids = new Set(nodes.map((n) => n.id));
  const known = edges.filter((e) => ids.has(e.from) && ids.has(e.to));
  const parents = new Map(nodes.map((n) => [n.id, []]));
  const children = new Map(nodes.map((n) => [n.id, []]));
  for (const e of known) {
    parents.get(e.to).push(e.from);
    children.get(e.from).push(e.to);
  }
  // Kahn's order: a node is taken once all its parents are, and sits one column right of its deepest parent.
  const column = new Map(nodes.map((n) => [n.id, 0]));
  const unseenParents = new Map(nodes.map((n) => [n.id, parents.get(n.id).length]));
  const order = nodes.filter((n) => unseenParents.get(n.id) === 0).map((n) => n.id);
  for (let i = 0; i < order.length; i++) {
    for (const child of children.get(order[i])) {
      column.set(child, Math.max(column.get(child), column.get(order[i]) + 1));
      unseenParents.set(child, unseenParents.get(child) - 1);
      if (unseenParents.get(child) === 0) order.push(child);
    }
  }
  const columns = [];
  nodes.forEach((n, index) => (columns[column.get(n.id)] ||= []).push({ id: n.id, index }));
  const place = new Map();
  columns.forEach((here, c) => {
    // Parents are all in earlier columns, already placed: order by their mean height (a row counted from the middle
    // of its column, as columns are centred), then as the workflow lists them.
    const meanRow = (id) => {
      const rows = parents.get(id).map((p) => place.get(p).row - (columns[place.get(p).column].length - 1) / 2);
      return rows.length ? rows.reduce((x, y) => x + y, 0) / rows.length : 0;
    };
    here.sort((a, b) => (c === 0 ? 0 : meanRow(a.id) - meanRow(b.id)) || a.index - b.index);
    here.forEach((n, row) => place.set(n.id, { column: c, row }));
  });
  return { place, sizes: columns.map((here) => here.length) };
}

function short(text) {
  const s = String(text);
  return s.length > TEXT_CHARS ? s.slice(0, TEXT_CHARS - 1) + '…' : s;
}

/** The point of the cubic Bézier p0..p3 where x = targetX (x grows with t on these curves), found by bisection. */
function pointAtX(p0, p1, p2, p3, targetX) {
  const at = (t, a, b, c, d) => (1 - t) ** 3 * a + 3 * (1 - t) ** 2 * t * b + 3 * (1 - t) * t ** 2 * c + t ** 3 * d;
  let low = 0;
  let high = 1;
  for (let i = 0; i < 30; i++) {
    const mid = (low + high) / 2;
    if (at(mid, p0.x, p1.x, p2.x, p3.x) < targetX) low = mid; else high = mid;
  }
  return { x: targetX, y: at(low, p0.y, p1.y, p2.y, p3.y) };
}

function edgeEl(edge, from, to) {
  const p0 = { x: from.x + NODE_W, y: from.y + NODE_H / 2 };
  const p3 = { x: to.x, y: to.y + NODE_H / 2 };
  const p1 = { x: p0.x + GAP_X / 2, y: p0.y };
  const p2 = { x: p3.x - GAP_X / 2, y: p3.y };
  // The label sits in the gap just before the child, where no node is, even on an edge that crosses columns.
  const label = pointAtX(p0, p1, p2, p3, p3.x - GAP_X / 2);
  return svg('g', { class: 'dag-edge on-' + edge.on, 'data-from': edge.from, 'data-to': edge.to },
    svg('title', {}, edge.from + ' → ' + edge.to + ' on ' + edge.on),
    svg('path', { d: `M${p0.x},${p0.y} C${p1.x},${p1.y} ${p2.x},${p2.y} ${p3.x},${p3.y}`, 'marker-end': 'url(#dag-arrow)' }),
    svg('text', { class: 'dag-edge-label', x: label.x, y: label.y - 4, 'text-anchor': 'middle' }, edge.on));
}

/**
 * The SVG of a workflow. look(node) says how a node is drawn: {detail: its second line, status (a status-… class, or
 * none), href (a link, or none), title (its tooltip)}.
 */
export function dagSvg(workflow, look) {
  const { place, sizes } = layout(workflow.nodes, workflow.edges);
  const columns = sizes.length;
  const rows = Math.max(...sizes);
  const width = 2 * PAD + columns * NODE_W + (columns - 1) * GAP_X;
  const height = 2 * PAD + rows * NODE_H + (rows - 1) * GAP_Y;
  const at = new Map([...place].map(([id, p]) => [id, {
    x: PAD + p.column * (NODE_W + GAP_X),
    // Each column is centred on the tallest one.
    y: PAD + (rows - sizes[p.column]) * (NODE_H + GAP_Y) / 2 + p.row * (NODE_H + GAP_Y),
  }]));
  return svg('svg', { id: 'workflow-dag', class: 'dag', width, height, viewBox: `0 0 ${width} ${height}`,
    role: 'group', 'aria-label': 'the workflow\'s graph' },
  svg('defs', {}, svg('marker', { id: 'dag-arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7,
    markerHeight: 7, orient: 'auto' }, svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'dag-arrow' }))),
  workflow.edges.filter((e) => at.has(e.from) && at.has(e.to)).map((e) => edgeEl(e, at.get(e.from), at.get(e.to))),
  workflow.nodes.map((node) => {
    const { detail, status, href, title } = look(node);
    const box = [
      svg('rect', { width: NODE_W, height: NODE_H, rx: 6 }),
      svg('text', { class: 'dag-node-id', x: 10, y: 19 }, short(node.id)),
      svg('text', { class: 'dag-node-detail', x: 10, y: 36 }, short(detail)),
    ];
    const { x, y } = at.get(node.id);
    return svg('g', { class: 'dag-node' + (status ? ' status-' + status : ''), 'data-node': node.id,
      transform: `translate(${x},${y})` }, svg('title', {}, title), href ? svg('a', { href }, box) : box);
  }));
}
