// The live request log: polled while its tab is shown, filtered on the server.
import { api, attempt, el, formatTime } from './common.js';
import { renderDecision } from './explain.js';

const POLL_MS = 1000;
const MAX_ROWS = 500;
const $ = (id) => document.getElementById(id);
let after = 0;
let timer = null;
let shown = false;

export function init() {
  const form = $('request-filters');
  form.addEventListener('input', restart);
  form.addEventListener('submit', (event) => { event.preventDefault(); restart(); });
  $('clear-requests').addEventListener('click', () => attempt(async () => {
    await api('requests', { method: 'DELETE' });
    restart();
  }));
  $('live').addEventListener('change', () => schedule(0));
}

export function visible(isShown) {
  shown = isShown;
  schedule(0);
}

function restart() {
  after = 0;
  $('requests').tBodies[0].replaceChildren();
  schedule(0);
}

function schedule(delay) {
  clearTimeout(timer);
  if (shown && (delay === 0 || $('live').checked)) timer = setTimeout(poll, delay);
}

async function poll() {
  const filters = new FormData($('request-filters'));
  const query = new URLSearchParams({ after, path: filters.get('path'), user: filters.get('user'), verdict: filters.get('verdict') });
  const page = await attempt(() => api(`requests?${query}`));
  if (page) {
    $('kept').textContent = `${page.kept.toLocaleString()} requests kept (at most ${page.limit.toLocaleString()})`;
    const body = $('requests').tBodies[0];
    for (const entry of page.requests) {
      after = Math.max(after, entry.id);
      body.prepend(...row(entry));
    }
    while (body.rows.length > MAX_ROWS * 2) body.lastElementChild.remove();
  }
  schedule(POLL_MS);
}

// The App Check verdict (never the token): valid, or why the token was refused; none when not judged.
function appCheck(entry) {
  if (!entry.app_check) return el('span', { class: 'muted' }, '—');
  return el('span', { class: `badge ${entry.app_check === 'valid' ? 'allowed' : 'denied'}` }, entry.app_check);
}

function row(entry) {
  const details = el('tr', { class: 'details', hidden: true },
    el('td', { colspan: 8 }, entry.decisions.map(renderDecision)));
  const verdict = entry.verdict
    ? el('button', { type: 'button', class: `badge ${entry.verdict}`, 'aria-expanded': 'false',
      onclick: (event) => {
        details.hidden = !details.hidden;
        event.currentTarget.setAttribute('aria-expanded', String(!details.hidden));
      } }, entry.verdict)
    : el('span', { class: 'muted' }, '—');
  const main = el('tr', { 'data-id': entry.id, class: entry.verdict || '' },
    el('td', {}, formatTime(entry.time)), el('td', {}, entry.method), el('td', { class: 'path' }, entry.path),
    el('td', {}, entry.user), el('td', { class: 'num' }, entry.status ?? 'dropped'),
    el('td', { class: 'num' }, entry.duration_ms.toFixed(1)), el('td', {}, verdict), el('td', {}, appCheck(entry)));
  return [main, details];
}
