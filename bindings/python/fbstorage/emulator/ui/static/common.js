// Shared helpers: the UI's own API (with this run's token), the storage API (as an admin client),
// element building, formatting, notices.

const token = document.querySelector('meta[name="ui-token"]').content;
export const ADMIN = { Authorization: 'Bearer owner' };
export const config = { storageUrl: location.origin, flavor: '', identityUrl: null };

async function failure(response) {
  let message = `${response.status} ${response.statusText}`;
  try { message = (await response.json()).error.message || message; } catch { /* not JSON */ }
  return new Error(message);
}

/** A call to /ui/api/…: JSON in and out; a failure throws with the server's message. */
export async function api(path, { method = 'GET', body } = {}) {
  const headers = { 'X-UI-Token': token };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`api/${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw await failure(response);
  return response.status === 204 ? null : response.json();
}

export const encode = (name) => encodeURIComponent(name);
export const objectUrl = (bucket, name) => `${config.storageUrl}/v0/b/${encode(bucket)}/o/${encode(name)}`;
export const bucketUrl = (bucket) => `${config.storageUrl}/v0/b/${encode(bucket)}/o`;

/** A call to the storage API with the admin credential, as any admin client makes it. */
export async function storage(url, { method = 'GET', headers = {}, body, as = 'json' } = {}) {
  const response = await fetch(url, { method, headers: { ...ADMIN, ...headers }, body });
  if (!response.ok) throw await failure(response);
  if (as === 'response') return response;
  return response.status === 204 ? null : response.json();
}

/** el('tr', {class: 'x', onclick: f}, child, 'text', …) */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'text') node.textContent = value;
    else node.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) node.append(child);
  }
  return node;
}

export function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024, unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export const formatTime = (seconds) => new Date(seconds * 1000).toLocaleTimeString([], { hour12: false });

let toastTimer;
export function notify(message, isError = false) {
  const toast = document.getElementById('toast');
  toast.textContent = message;
  toast.className = isError ? 'shown error' : 'shown';
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { toast.className = ''; }, isError ? 8000 : 3000);
}

/** Runs an action; a failure becomes an error notice instead of an uncaught rejection. */
export async function attempt(action) {
  try { return await action(); } catch (error) { notify(error.message, true); return undefined; }
}

export function confirmAction(message) {
  const dialog = document.getElementById('confirm');
  dialog.querySelector('p').textContent = message;
  dialog.returnValue = '';
  dialog.showModal();
  return new Promise((resolve) => dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true }));
}
