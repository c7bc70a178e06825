// Auth users: the Auth emulator's admin API (accounts of the project), when that emulator runs.
// The tab stays hidden unless the server reports an identity URL.
import { attempt, config, el, notify } from './common.js';

const ADMIN = { Authorization: 'Bearer owner', 'Content-Type': 'application/json' };
const section = () => document.getElementById('tab-auth');
let project = 'demo-project';

async function call(path, body) {
  const response = await fetch(`${config.identityUrl}/identitytoolkit.googleapis.com/v1/projects/${encodeURIComponent(project)}/${path}`,
    { method: 'POST', headers: ADMIN, body: JSON.stringify(body || {}) });
  const json = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(json.error?.message || `${response.status} ${response.statusText}`);
  return json;
}

export function init() {
  if (!config.identityUrl) return;
  document.querySelector('nav a[data-tab="auth"]').hidden = false;
}

export async function visible(shown) {
  if (!shown || !config.identityUrl) return;
  await attempt(render);
}

async function render() {
  const { userInfo = [] } = await call('accounts:query', { returnUserInfo: true });
  const create = el('form', { class: 'row' },
    el('label', {}, 'Email ', el('input', { name: 'email', type: 'email', required: true })),
    el('label', {}, 'Password ', el('input', { name: 'password', type: 'password', minlength: 6, required: true })),
    el('button', { type: 'submit' }, 'Create user'));
  create.addEventListener('submit', (event) => {
    event.preventDefault();
    attempt(async () => {
      await call('accounts', { email: create.elements.email.value, password: create.elements.password.value });
      notify('User created.');
      await render();
    });
  });
  const projectForm = el('form', { class: 'row' }, el('label', {}, 'Project ', el('input', { name: 'project', value: project })),
    el('button', { type: 'submit' }, 'Show'));
  projectForm.addEventListener('submit', (event) => { event.preventDefault(); project = projectForm.elements.project.value; attempt(render); });
  section().replaceChildren(projectForm, create, el('table', {},
    el('thead', {}, el('tr', {}, ['uid', 'email', 'disabled', 'custom claims', ''].map((title) => el('th', {}, title)))),
    el('tbody', {}, userInfo.map(userRow))));
}

function userRow(user) {
  const claims = el('input', { value: user.customAttributes || '', 'aria-label': `Custom claims of ${user.localId}` });
  const update = (body, message) => attempt(async () => { await call('accounts:update', { localId: user.localId, ...body }); notify(message); await render(); });
  return el('tr', {}, el('td', {}, el('code', {}, user.localId)), el('td', {}, user.email || ''), el('td', {}, user.disabled ? 'yes' : 'no'),
    el('td', {}, claims, el('button', { type: 'button', onclick: () => update({ customAttributes: claims.value || '{}' }, 'Claims saved.') }, 'Save')),
    el('td', {},
      el('button', { type: 'button', onclick: () => update({ disableUser: !user.disabled }, user.disabled ? 'Enabled.' : 'Disabled.') }, user.disabled ? 'Enable' : 'Disable'),
      el('button', { type: 'button', class: 'danger', onclick: () => attempt(async () => { await call('accounts:delete', { localId: user.localId }); await render(); }) }, 'Delete')));
}
