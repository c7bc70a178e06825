// Tabs (from the URL hash) and start-up.
import { api, attempt, config } from './common.js';
import * as storageTab from './browser.js';
import * as requestsTab from './requests.js';
import * as rulesTab from './rules.js';
import * as authTab from './auth.js';

const tabs = { storage: storageTab, requests: requestsTab, rules: rulesTab, auth: authTab };

function show() {
  const [, name = 'storage', ...rest] = location.hash.split('/');
  const tab = tabs[name] ? name : 'storage';
  for (const key of Object.keys(tabs)) {
    document.getElementById(`tab-${key}`).hidden = key !== tab;
    const link = document.querySelector(`nav a[data-tab="${key}"]`);
    if (key === tab) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
  }
  for (const [key, module] of Object.entries(tabs)) module.visible?.(key === tab, rest.map(decodeURIComponent));
}

async function start() {
  Object.assign(config, await api('config'));
  document.getElementById('flavor').textContent = `flavor: ${config.flavor}`;
  for (const module of Object.values(tabs)) module.init();
  window.addEventListener('hashchange', show);
  show();
}

attempt(start);
