// The storage browser: buckets, folders by pages, uploads, the object panel.
import { api, attempt, bucketUrl, config, confirmAction, el, encode, formatSize, notify, objectUrl, storage } from './common.js';

const PAGE_SIZE = 200;
const PREVIEW_BYTES = 65536;
const $ = (id) => document.getElementById(id);
const view = { bucket: '', prefix: '', nextPage: null, selected: null };
let previewUrl = null;

export function init() {
  $('bucket-form').addEventListener('submit', (event) => {
    event.preventDefault();
    go($('bucket').value.trim(), '');
  });
  $('file-input').addEventListener('change', (event) => { upload([...event.target.files]); event.target.value = ''; });
  $('upload-label').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); $('file-input').click(); }
  });
  $('refresh').addEventListener('click', () => attempt(list));
  $('more').addEventListener('click', () => attempt(() => list(view.nextPage)));
  $('delete-folder').addEventListener('click', () => attempt(deleteFolder));
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !$('object-panel').hidden && !$('confirm').open) {
      const name = view.selected;
      closePanel();
      document.querySelector(`#objects tr[data-name="${CSS.escape(name)}"] button`)?.focus();
    }
  });
  const zone = $('drop-zone');
  zone.addEventListener('dragover', (event) => { event.preventDefault(); zone.classList.add('dragging'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('dragging');
    upload([...event.dataTransfer.files]);
  });
}

export async function visible(shown, [bucket, prefix = ''] = []) {
  if (!shown) return;
  const buckets = (await attempt(() => api('buckets')))?.buckets || [];
  $('bucket-list').replaceChildren(...buckets.map((b) => el('option', { value: b.name }, `${b.objects} objects`)));
  if (!bucket && buckets.length) bucket = buckets[0].name;
  if (!bucket) { $('bucket').focus(); return; }
  if (bucket !== view.bucket || prefix !== view.prefix) {
    Object.assign(view, { bucket, prefix, selected: null });
    closePanel();
  }
  $('bucket').value = bucket;
  await attempt(list);
}

function go(bucket, prefix) {
  location.hash = `#/storage/${encode(bucket)}/${encode(prefix)}`;
}

function breadcrumbs() {
  const parts = view.prefix.split('/').filter(Boolean);
  const crumbs = [el('a', { href: `#/storage/${encode(view.bucket)}/` }, view.bucket)];
  parts.forEach((part, index) => {
    const prefix = `${parts.slice(0, index + 1).join('/')}/`;
    crumbs.push(' / ', el('a', { href: `#/storage/${encode(view.bucket)}/${encode(prefix)}` }, part));
  });
  $('breadcrumbs').replaceChildren(...crumbs);
  $('delete-folder').hidden = !view.prefix;
}

async function list(start = 0) {
  breadcrumbs();
  const query = new URLSearchParams({ bucket: view.bucket, prefix: view.prefix, start, limit: PAGE_SIZE });
  const page = await api(`list?${query}`);
  const body = $('objects').tBodies[0];
  if (!start) body.replaceChildren();
  for (const entry of page.entries) body.append(entry.folder ? folderRow(entry.name) : objectRow(entry));
  view.nextPage = page.next;
  $('more').hidden = page.next === null;
  $('empty').hidden = body.rows.length > 0;
  $('count').textContent = `${body.rows.length} of ${page.total} shown`;
}

const leaf = (name) => name.slice(view.prefix.length);

function folderRow(prefix) {
  return el('tr', { class: 'folder' },
    el('td', {}, el('a', { href: `#/storage/${encode(view.bucket)}/${encode(prefix)}` }, `📁 ${leaf(prefix)}`)),
    el('td', { class: 'num' }), el('td', {}, 'folder'), el('td'));
}

function objectRow({ name, size, contentType, updated }) {
  const row = el('tr', { 'data-name': name },
    el('td', {}, el('button', { class: 'link', type: 'button', onclick: () => attempt(() => openPanel(name)) }, leaf(name))),
    el('td', { class: 'num', 'data-size': size, title: `${size} bytes` }, formatSize(size)),
    el('td', {}, contentType || ''),
    el('td', {}, new Date(updated).toLocaleString()));
  if (name === view.selected) row.classList.add('selected');
  return row;
}

// Uploads: the v0 resumable protocol, one request with the whole file, progress from the XHR.

async function upload(files) {
  if (!view.bucket) { notify('Open a bucket first.', true); return; }
  await Promise.all(files.map((file) => attempt(() => uploadOne(file))));
  await attempt(list);
}

async function uploadOne(file) {
  const name = view.prefix + file.name;
  const type = file.type || 'application/octet-stream';
  const progress = el('progress', { max: file.size || 1, value: 0, 'aria-label': `Uploading ${name}` });
  const line = el('div', { class: 'upload' }, el('span', {}, name), progress);
  $('uploads').append(line);
  try {
    const start = await storage(`${bucketUrl(view.bucket)}?name=${encode(name)}`, {
      method: 'POST', as: 'response', body: JSON.stringify({ name, contentType: type }),
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-Goog-Upload-Protocol': 'resumable',
        'X-Goog-Upload-Command': 'start', 'X-Goog-Upload-Header-Content-Length': String(file.size),
        'X-Goog-Upload-Header-Content-Type': type } });
    await send(start.headers.get('X-Goog-Upload-URL'), file, progress);
  } finally {
    line.remove();
  }
}

function send(url, file, progress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', url);
    request.setRequestHeader('X-Goog-Upload-Command', 'upload, finalize');
    request.setRequestHeader('X-Goog-Upload-Offset', '0');
    request.upload.onprogress = (event) => { progress.value = event.loaded; };
    request.onload = () => {
      if (request.status === 200) resolve();
      else reject(new Error(`Upload of ${file.name}: ${request.status} ${request.responseText.slice(0, 200)}`));
    };
    request.onerror = () => reject(new Error(`Upload of ${file.name} failed: the emulator is unreachable.`));
    request.send(file);
  });
}

async function deleteFolder() {
  if (!await confirmAction(`Delete the folder ${view.prefix} and every object in it?`)) return;
  const { deleted } = await api('delete-folder', { method: 'POST', body: { bucket: view.bucket, prefix: view.prefix } });
  notify(`Deleted ${deleted} objects.`);
  const parent = view.prefix.split('/').filter(Boolean).slice(0, -1).join('/');
  go(view.bucket, parent ? `${parent}/` : '');
}

// The object panel.

function closePanel() {
  $('object-panel').hidden = true;
  if (previewUrl) URL.revokeObjectURL(previewUrl);
  previewUrl = null;
  view.selected = null;
  document.querySelectorAll('#objects tr.selected').forEach((row) => row.classList.remove('selected'));
}

async function openPanel(name) {
  const metadata = await storage(objectUrl(view.bucket, name));
  closePanel();
  view.selected = name;
  document.querySelector(`#objects tr[data-name="${CSS.escape(name)}"]`)?.classList.add('selected');
  const panel = $('object-panel');
  panel.replaceChildren(
    el('div', { class: 'row' }, el('h2', {}, name.split('/').pop()),
      el('button', { type: 'button', 'aria-label': 'Close', onclick: closePanel }, '✕')),
    el('div', { class: 'row' },
      el('button', { type: 'button', onclick: () => attempt(() => download(name)) }, 'Download'),
      el('button', { type: 'button', class: 'danger', onclick: () => attempt(() => deleteObject(name)) }, 'Delete')),
    moveForm(name),
    el('h3', {}, 'Metadata'), metadataTable(metadata),
    el('h3', {}, 'Custom metadata'), customForm(name, metadata.metadata || {}),
    el('h3', {}, 'Download tokens'), tokenList(name, metadata),
    el('h3', {}, 'Preview'), el('div', { id: 'preview' }, el('span', { class: 'muted' }, 'Loading…')));
  panel.hidden = false;
  panel.querySelector('button').focus();
  await preview(name, metadata);
}

function metadataTable(metadata) {
  const rows = Object.entries(metadata).filter(([key]) => key !== 'metadata')
    .map(([key, value]) => el('tr', {}, el('th', {}, key), el('td', {}, String(value))));
  return el('table', { class: 'metadata' }, el('tbody', {}, rows));
}

function customRow(key = '', value = '') {
  const row = el('div', { class: 'row custom' },
    el('input', { 'aria-label': 'Key', class: 'key', value: key }),
    el('input', { 'aria-label': 'Value', class: 'value', value }),
    el('button', { type: 'button', 'aria-label': `Remove ${key}`, onclick: () => row.remove() }, '−'));
  return row;
}

function customForm(name, custom) {
  const rows = el('div', {}, Object.entries(custom).map(([key, value]) => customRow(key, value)));
  const form = el('form', { id: 'custom-metadata' }, rows,
    el('div', { class: 'row' },
      el('button', { type: 'button', onclick: () => { const row = customRow(); rows.append(row); row.querySelector('input').focus(); } }, 'Add field'),
      el('button', { type: 'submit' }, 'Save metadata')));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    attempt(async () => {
      const changed = Object.fromEntries(Object.keys(custom).map((key) => [key, null]));
      for (const row of rows.querySelectorAll('.custom')) {
        const key = row.querySelector('.key').value.trim();
        if (key) changed[key] = row.querySelector('.value').value;
      }
      await storage(objectUrl(view.bucket, name), { method: 'PATCH', body: JSON.stringify({ metadata: changed }),
        headers: { 'Content-Type': 'application/json' } });
      notify('Metadata saved.');
      await openPanel(name);
    });
  });
  return form;
}

function tokenList(name, metadata) {
  const tokens = (metadata.downloadTokens || '').split(',').filter(Boolean);
  const change = (query) => attempt(async () => {
    await storage(`${objectUrl(view.bucket, name)}?${query}`, { method: 'POST' });
    await openPanel(name);
  });
  return el('div', {},
    el('ul', { class: 'tokens' }, tokens.map((token) => {
      const url = `${objectUrl(view.bucket, name)}?alt=media&token=${token}`;
      return el('li', {}, el('code', {}, token),
        el('button', { type: 'button', onclick: () => attempt(async () => { await navigator.clipboard.writeText(url); notify('Download URL copied.'); }) }, 'Copy URL'),
        el('button', { type: 'button', onclick: () => change(`delete_token=${encode(token)}`) }, 'Revoke'));
    })),
    el('button', { type: 'button', onclick: () => change('create_token=true') }, 'Create token'));
}

function moveForm(name) {
  const input = el('input', { value: name, 'aria-label': 'New name', required: true });
  const form = el('form', { class: 'row', id: 'move' }, input, el('button', { type: 'submit' }, 'Rename / move'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    attempt(async () => {
      const target = input.value.trim();
      if (!target || target === name) return;
      // The GCS JSON API's copy (all metadata kept), then the v0 delete: the routes clients use.
      await storage(`${config.storageUrl}/storage/v1/b/${encode(view.bucket)}/o/${encode(name)}/copyTo/b/${encode(view.bucket)}/o/${encode(target)}`,
        { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
      await storage(objectUrl(view.bucket, name), { method: 'DELETE' });
      notify(`Moved to ${target}.`);
      closePanel();
      await list();
    });
  });
  return form;
}

async function download(name) {
  const response = await storage(`${objectUrl(view.bucket, name)}?alt=media`, { as: 'response' });
  const link = el('a', { href: URL.createObjectURL(await response.blob()), download: name.split('/').pop() });
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

async function deleteObject(name) {
  if (!await confirmAction(`Delete ${name}?`)) return;
  await storage(objectUrl(view.bucket, name), { method: 'DELETE' });
  notify(`Deleted ${name}.`);
  closePanel();
  await list();
}

async function preview(name, metadata) {
  const type = metadata.contentType || '';
  const box = $('preview');
  const textual = type.startsWith('text/') || /json|xml|javascript/.test(type);
  if (!type.startsWith('image/') && !textual) { box.replaceChildren(el('span', { class: 'muted' }, `No preview for ${type || 'this type'}.`)); return; }
  const headers = textual ? { Range: `bytes=0-${PREVIEW_BYTES - 1}` } : {};
  const response = await storage(`${objectUrl(view.bucket, name)}?alt=media`, { as: 'response', headers });
  const blob = await response.blob();
  if (view.selected !== name) return;
  if (type.startsWith('image/')) {
    previewUrl = URL.createObjectURL(blob);
    box.replaceChildren(el('img', { src: previewUrl, alt: `Preview of ${name}` }));
    return;
  }
  let text = await blob.text();
  if (type.includes('json')) { try { text = JSON.stringify(JSON.parse(text), null, 2); } catch { /* partial or invalid: as is */ } }
  const cut = Number(metadata.size) > PREVIEW_BYTES ? `\n… (first ${formatSize(PREVIEW_BYTES)})` : '';
  box.replaceChildren(el('pre', {}, text + cut));
}
