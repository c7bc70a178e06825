// Auth users: the Auth emulator's admin API (emulator/identity) on the storage port, for the
// emulator's project, and the email codes waiting in it, each applied as clicking its link would.
// The tab stays hidden when that API is not served.
import { attempt, config, confirmAction, el, notify } from './common.js';

const ADMIN_JSON = { Authorization: 'Bearer owner', 'Content-Type': 'application/json' };
const MAX_USERS = 1000;
const section = () => document.getElementById('tab-auth');

async function call(operation, { method = 'POST', body, query = '' } = {}) {
  const url = `${config.identityUrl}/identitytoolkit.googleapis.com/v1/projects/${encodeURIComponent(config.project)}/${operation}${query}`;
  const response = await fetch(url, { method, headers: ADMIN_JSON, body: body === undefined ? undefined : JSON.stringify(body) });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error?.message || `${response.status} ${response.statusText}`);
  return answer;
}

// What a user's click on the link does: the client calls the SDKs make (any API key works).
async function userCall(operation, body) {
  const url = `${config.identityUrl}/identitytoolkit.googleapis.com/v1/accounts:${operation}?key=emulator-ui`;
  const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error?.message || `${response.status} ${response.statusText}`);
  return answer;
}

async function pendingCodes() {
  const url = `${config.identityUrl}/emulator/v1/projects/${encodeURIComponent(config.project)}/oobCodes`;
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
  return (await response.json()).oobCodes;
}

export function init() {
  document.querySelector('nav a[data-tab="auth"]').hidden = !config.identityUrl;
}

export async function visible(shown) {
  if (shown && config.identityUrl) await attempt(render);
}

async function render() {
  const { users = [], nextPageToken } = await call('accounts:batchGet', { method: 'GET', query: `?maxResults=${MAX_USERS}` });
  const codes = await pendingCodes();
  const create = el('form', { class: 'row', id: 'create-user' },
    el('label', {}, 'Email ', el('input', { name: 'email', type: 'email', required: true, autocomplete: 'off' })),
    el('label', {}, 'Password ', el('input', { name: 'password', type: 'password', minlength: 6, required: true, autocomplete: 'new-password' })),
    el('button', { type: 'submit' }, 'Create user'));
  create.addEventListener('submit', (event) => {
    event.preventDefault();
    attempt(async () => {
      await call('accounts', { body: { email: create.elements.email.value, password: create.elements.password.value } });
      await render();
      notify('User created.'); // after the table is redrawn, so that what it says is on screen
    });
  });
  section().replaceChildren(
    el('p', { class: 'muted' }, `Project ${config.project}: ${users.length} users${nextPageToken ? ` (the first ${MAX_USERS})` : ''}.`),
    create,
    el('table', { id: 'users' },
      el('thead', {}, el('tr', {}, ['uid', 'email', 'verified', 'providers', 'disabled', 'custom claims (JSON)', ''].map((title) => el('th', {}, title)))),
      el('tbody', {}, users.map(userRow))),
    el('h3', {}, 'Pending email codes'),
    codes.length
      ? el('table', { id: 'oob-codes' },
        el('thead', {}, el('tr', {}, ['kind', 'email', 'link', ''].map((title) => el('th', {}, title)))),
        el('tbody', {}, codes.map(codeRow)))
      : el('p', { class: 'muted', id: 'no-oob-codes' }, 'None: codes appear here when an app sends a verification, password reset or sign-in email.'));
}

// The kinds a button completes as the link would; an email sign-in link is the app's to open.
const APPLY = { VERIFY_EMAIL: ['Verify email', 'Email verified.'], VERIFY_AND_CHANGE_EMAIL: ['Change email', 'Email changed.'] };

async function complete(operation, body, message) {
  await userCall(operation, body);
  await render();
  notify(message);
}

function codeRow(code) {
  let action = el('span', { class: 'muted' }, 'the app completes it with the email');
  if (APPLY[code.requestType]) {
    const [label, message] = APPLY[code.requestType];
    action = el('button', { type: 'button', onclick: () => attempt(() => complete('update', { oobCode: code.oobCode }, message)) }, label);
  } else if (code.requestType === 'PASSWORD_RESET') {
    const password = el('input', { type: 'password', minlength: 6, required: true, autocomplete: 'new-password', placeholder: 'new password', 'aria-label': `New password for ${code.email}` });
    action = el('form', { class: 'row' }, password, el('button', { type: 'submit' }, 'Reset password'));
    action.addEventListener('submit', (event) => {
      event.preventDefault();
      attempt(() => complete('resetPassword', { oobCode: code.oobCode, newPassword: password.value }, 'Password reset.'));
    });
  }
  return el('tr', { 'data-code': code.oobCode },
    el('td', {}, code.requestType), el('td', {}, code.newEmail ? `${code.email} → ${code.newEmail}` : code.email),
    el('td', {}, el('code', { class: 'link' }, code.oobLink)), el('td', {}, action));
}

function userRow(user) {
  const claims = el('input', { value: user.customAttributes || '', 'aria-label': `Custom claims of ${user.localId}`, class: 'claims' });
  const change = (body, message) => attempt(async () => {
    await call('accounts:update', { body: { localId: user.localId, ...body } });
    await render();
    notify(message);
  });
  const remove = () => attempt(async () => {
    if (!await confirmAction(`Delete the user ${user.email || user.localId}?`)) return;
    await call('accounts:delete', { body: { localId: user.localId } });
    await render();
    notify('User deleted.');
  });
  return el('tr', { 'data-uid': user.localId },
    el('td', {}, el('code', {}, user.localId)), el('td', {}, user.email || ''), el('td', {}, user.emailVerified ? 'yes' : 'no'),
    el('td', {}, (user.providerUserInfo || []).map((provider) => provider.providerId).join(', ') || 'anonymous'),
    el('td', {}, user.disabled ? 'yes' : 'no'),
    el('td', {}, el('div', { class: 'row' }, claims,
      el('button', { type: 'button', onclick: () => change({ customAttributes: claims.value.trim() || '{}' }, 'Claims saved.') }, 'Save claims'))),
    el('td', {},
      el('button', { type: 'button', onclick: () => change({ disableUser: !user.disabled }, user.disabled ? 'User enabled.' : 'User disabled.') },
        user.disabled ? 'Enable' : 'Disable'), ' ',
      el('button', { type: 'button', class: 'danger', onclick: remove }, 'Delete')));
}
