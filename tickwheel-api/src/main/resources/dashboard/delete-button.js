// A DELETE that asks first (a job's delete, a token's revoke): "delete" turns into 'delete "x"?' and "keep"; only the
// question sends the call. A refusal is said under the header and the first button comes back.
'use strict';

import { el, fill } from './dom.js';
import { call, messageOf } from './api.js';
import { notify } from './router.js';

/**
 * name: the button's text and class ("delete"; the question's class is 'confirm-' + name, the box's name + '-box');
 * done() runs after a 2xx answer to DELETE path.
 */
export function deleteButton(name, question, path, done) {
  const box = el('span', { class: name + '-box' });
  const showButton = () => fill(box, el('button', { type: 'button', class: name, onclick: ask }, name));
  const ask = () => fill(box,
    el('button', { type: 'button', class: 'confirm-' + name + ' danger', onclick: async () => {
      const reply = await call('DELETE', path);
      if (reply.ok) {
        done();
      } else {
        notify(name + ' failed: ' + messageOf(reply), 'error');
        showButton();
      }
    } }, question),
    el('button', { type: 'button', class: 'keep', onclick: showButton }, 'keep'));
  showButton();
  return box;
}
