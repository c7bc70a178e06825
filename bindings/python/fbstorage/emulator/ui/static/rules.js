// The active rules (highlighted), a failed reload's error, and the playground.
import { api, attempt, el } from './common.js';
import { renderDecision } from './explain.js';

const $ = (id) => document.getElementById(id);
const TOKEN = /(\/\/[^\n]*)|('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")|(\b\d+(?:\.\d+)?\b)|(\b(?:rules_version|service|match|allow|if|function|return|let|true|false|null|in|is)\b)|(\b(?:read|write|get|list|create|update|delete)\b(?=[\s,]*[,:]))|(\{[\w=*]+\})/g;
const CLASSES = ['comment', 'string', 'number', 'keyword', 'method', 'capture'];

/** The source as lines of highlighted spans (text nodes only: no markup from the rules reaches the page). */
function highlight(source) {
  return source.split('\n').map((text, index) => {
    const line = el('span', { class: 'line', 'data-line': index + 1 });
    let last = 0;
    for (const match of text.matchAll(TOKEN)) {
      line.append(text.slice(last, match.index));
      const kind = CLASSES[match.slice(1).findIndex((group) => group !== undefined)];
      line.append(el('span', { class: `tok-${kind}` }, match[0]));
      last = match.index + match[0].length;
    }
    line.append(text.slice(last), '\n');
    return line;
  });
}

export function init() {
  $('playground').addEventListener('submit', (event) => { event.preventDefault(); attempt(evaluate); });
  $('playground').elements.signedIn.addEventListener('change', toggleAuth);
}

export async function visible(shown) {
  if (!shown) return;
  const form = $('playground');
  if (!form.elements.bucket.value) form.elements.bucket.value = $('bucket').value;
  const rules = await attempt(() => api('rules'));
  if (!rules) return;
  const error = rules.reloadError;
  $('rules-error').hidden = !error;
  if (error) {
    const where = error.text === null ? null
      : el('pre', { class: 'error-line' }, `${error.line} | ${error.text}\n${' '.repeat(String(error.line).length + 2 + error.column)}^`);
    $('rules-error').replaceChildren(el('strong', {}, 'The last reload failed; the previous rules stay in force. '),
      el('code', {}, error.message), where);
  }
  const sections = rules.rulesets.map((ruleset) => el('div', { class: 'ruleset' },
      el('h2', {}, ruleset.file, el('span', { class: 'muted' }, ruleset.buckets ? ` (bucket ${ruleset.buckets.join(', ')})` : ' (every bucket)')),
      ruleset.warnings.map((warning) => el('p', { class: 'warning' }, warning)),
      el('pre', { class: 'rules-source', tabindex: 0 }, highlight(ruleset.source))));
  if (!rules.configured) sections.push(el('p', { class: 'muted' }, 'No rules are loaded: every request is allowed (start with --rules FILE).'));
  $('rules-sources').replaceChildren(...sections);
}

function toggleAuth() {
  const form = $('playground');
  for (const name of ['uid', 'email', 'claims']) form.elements[name].disabled = !form.elements.signedIn.checked;
}

function parseObject(text, what) {
  if (!text.trim()) return {};
  let value;
  try { value = JSON.parse(text); } catch (error) { throw new Error(`${what}: ${error.message}`); }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what} must be a JSON object`);
  return value;
}

async function evaluate() {
  const form = $('playground').elements;
  const body = {
    bucket: form.bucket.value.trim(), method: form.method.value, path: form.path.value,
    auth: form.signedIn.checked ? { uid: form.uid.value, email: form.email.value, claims: parseObject(form.claims.value, 'Custom claims') } : null,
    resource: { size: Number(form.size.value || 0), contentType: form.contentType.value, metadata: parseObject(form.metadata.value, 'Custom metadata') },
  };
  const result = await api('playground', { method: 'POST', body });
  $('playground-result').replaceChildren(
    el('p', {}, `A real request would get HTTP ${result.status}`, result.message ? `: ${result.message}` : '.'),
    renderDecision(result));
}
