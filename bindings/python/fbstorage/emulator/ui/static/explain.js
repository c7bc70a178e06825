// One rules decision, explained: the statement that granted it, or each candidate and what failed.
import { el } from './common.js';

function failure(leaf) {
  const outcome = leaf.error !== undefined ? el('span', { class: 'denied' }, `error: ${leaf.error}`)
    : el('span', {}, 'was ', el('code', {}, leaf.value));
  const operands = (leaf.operands || []).map((operand) => el('li', {}, el('code', {}, operand.expression), ' was ',
    operand.error !== undefined ? el('span', { class: 'denied' }, `error: ${operand.error}`) : el('code', {}, operand.value)));
  return el('li', { class: 'failure' }, el('code', {}, leaf.expression), ` (line ${leaf.line}) `, outcome,
    operands.length ? el('ul', {}, operands) : null);
}

function statement(explained) {
  return el('li', { class: explained.granted ? 'granted' : 'failed' },
    el('div', {}, el('strong', {}, explained.granted ? 'granted by ' : 'not granted by '),
      `line ${explained.line}: `, el('code', {}, explained.text),
      el('span', { class: 'muted' }, ` in match ${explained.match}`)),
    explained.failures.length ? el('ul', {}, explained.failures.map(failure)) : null);
}

export function renderDecision(decision) {
  return el('div', { class: 'decision' },
    el('div', {}, el('span', { class: `badge ${decision.verdict}` }, decision.verdict), ' ',
      el('code', {}, `${decision.method} ${decision.path}`)),
    decision.reason ? el('p', { class: 'reason' }, decision.reason) : null,
    el('ul', { class: 'statements' }, decision.statements.map(statement)));
}
