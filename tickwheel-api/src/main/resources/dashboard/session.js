// Who the console acts as: the answer of GET /api/whoami ({name, namespace, role}), and what that role may do. The
// views ask here before drawing a control, so a control the token cannot use is not drawn at all; the server checks
// every call anyway (RouteAccess), this only keeps the page honest about it.
'use strict';

const RANKS = { READ: 1, OPERATE: 2, ADMIN: 3 };

/** Before the first whoami answer (or on a server too old to have one): everything is shown, the server decides. */
const UNKNOWN = { name: null, namespace: null, role: 'ADMIN' };

let current = UNKNOWN;

export function caller() {
  return current;
}

/** Sets who the console acts as; null: nobody (logged out, or a token refused). */
export function setCaller(who) {
  current = who || UNKNOWN;
}

function covers(role) {
  return (RANKS[current.role] || 0) >= RANKS[role];
}

/** Run, cancel, rerun, reschedule, enable and disable. */
export function mayOperate() {
  return covers('OPERATE');
}

/** Create, edit and delete jobs; tokens and the audit trail. */
export function mayAdmin() {
  return covers('ADMIN');
}

/** A token of every namespace: the only kind that reaches the cluster and sees every namespace's jobs and pools. */
export function ofEveryNamespace() {
  return current.namespace === null || current.namespace === undefined;
}

/** "ci · OPERATE · payments", "bootstrap · ADMIN · every namespace". */
export function callerText(who = current) {
  return [who.name, who.role, who.namespace == null ? 'every namespace' : who.namespace].join(' · ');
}
