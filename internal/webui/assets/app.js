// triage's web page. Everything a program printed reaches the document
// through text nodes (el() and textContent), never through HTML parsing.
'use strict';

const STATUSES = ['success', 'failure', 'crash', 'timeout', 'interrupted', 'running', 'incomplete'];
const main = () => document.getElementById('main');

// el builds an element; strings among children become text nodes.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// A build or test's status words (succeeded, failed, ...) are coloured as
// a run's.
const ALIAS = { succeeded: 'success', failed: 'failure', silent_failure: 'failure', crashed: 'crash', timed_out: 'timeout' };

function stClass(prefix, status) {
  status = ALIAS[status] || status;
  return prefix + (STATUSES.includes(status) ? status : 'other');
}

// The login's key (X-Triage-Key): the login sends the browser here with it
// in the fragment (#key=...); it is kept in this origin's storage, which no
// other port of the host reads (a cookie reaches every port), and sent
// with every request to the API.
const KEY = (() => {
  const m = /^#key=([A-Za-z0-9]+)$/.exec(location.hash);
  if (m) {
    localStorage.setItem('triage-key', m[1]);
    history.replaceState(history.state, '', location.pathname + location.search);
  }
  return localStorage.getItem('triage-key') || '';
})();

// keyed is an API address with the key in its query, for what a browser
// fetches without the script's headers (the event stream, downloads).
function keyed(path) {
  return path + (path.includes('?') ? '&' : '?') + 'key=' + encodeURIComponent(KEY);
}

class HTTPError extends Error {
  constructor(status, msg) { super(msg); this.status = status; }
}

async function api(path) {
  const r = await fetch('/ui/api/' + path, { credentials: 'same-origin', headers: { 'X-Triage-Key': KEY } });
  const body = await r.json().catch(() => ({ error: r.statusText }));
  if (!r.ok) throw new HTTPError(r.status, body.error || r.statusText);
  return body;
}

function showError(err) {
  const m = main();
  m.replaceChildren(el('p', { class: 'error', role: 'alert' }, err.status === 401
    ? 'Not logged in. Run `triage ui` and open the URL it prints.' : 'Error: ' + err.message));
}

function age(t) {
  const s = Math.max(0, (Date.now() - new Date(t).getTime()) / 1000);
  if (s < 60) return Math.floor(s) + 's ago';
  if (s < 3600) return Math.floor(s / 60) + 'm ago';
  if (s < 86400) return Math.floor(s / 3600) + 'h ago';
  return Math.floor(s / 86400) + 'd ago';
}

function duration(e) {
  if (!e.finished) return null;
  return (new Date(e.finished) - new Date(e.created)) / 1000;
}

function fmtDur(d) {
  if (d === null) return '…';
  return d < 1 ? Math.round(d * 1000) + ' ms' : d < 120 ? d.toFixed(1) + ' s' : Math.round(d / 60) + ' min';
}

// ---- routing ----

const page = { name: '', reload: null, keydown: null, dispose: null };

function navigate(href) {
  history.pushState(null, '', href);
  route();
}

function route() {
  if (page.dispose) page.dispose();
  Object.assign(page, { reload: null, keydown: null, dispose: null });
  const path = location.pathname.replace(/\/+$/, '');
  let m;
  if (path === '/ui' || path === '/ui/runs') page.name = 'runs', window.TriageRuns.show();
  else if ((m = path.match(/^\/ui\/runs\/([^/]+)$/))) page.name = 'run', window.TriageRun.show(decodeURIComponent(m[1]));
  else if (path === '/ui/sessions') page.name = 'sessions', window.TriageSessions.show();
  else if (path === '/ui/doctor') page.name = 'doctor', showDoctor();
  else page.name = '', main().replaceChildren(el('p', { class: 'error' }, 'No such page: ' + path));
  for (const a of document.querySelectorAll('nav a')) {
    a.classList.toggle('active', a.dataset.nav === page.name || (a.dataset.nav === 'runs' && page.name === 'run'));
  }
}

document.addEventListener('click', (ev) => {
  const a = ev.target.closest('a');
  if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey || a.hasAttribute('download')) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith('/ui/') || url.pathname.startsWith('/ui/api/')) return;
  if (url.pathname === location.pathname && url.search === location.search && url.hash) return; // #L links
  ev.preventDefault();
  navigate(url.pathname + url.search + url.hash);
});
window.addEventListener('popstate', route);
document.addEventListener('keydown', (ev) => {
  if (page.keydown) page.keydown(ev);
});

// ---- live updates ----

function live() {
  const badge = document.getElementById('live');
  const banner = document.getElementById('offline');
  const es = new EventSource(keyed('/ui/api/events'));
  // Offline (the server stopped: `triage daemon stop`) greys the whole page
  // under a banner: what it shows may no longer be so. The event stream
  // reconnects by itself, and its "ready" lifts both.
  const online = (on) => {
    badge.textContent = on ? 'live' : 'offline';
    badge.classList.toggle('on', on);
    banner.hidden = on;
    document.body.classList.toggle('offline', !on);
  };
  es.addEventListener('ready', () => {
    const was = document.body.classList.contains('offline');
    online(true);
    if (was && page.reload) page.reload(); // what changed while it was away
  });
  es.addEventListener('runs', () => { if (page.reload) page.reload(); });
  es.addEventListener('sessions', () => { if (page.name === 'sessions' && page.reload) page.reload(); });
  es.onerror = () => online(false);
}

// ---- doctor ----

async function showDoctor() {
  let d;
  try { d = await api('doctor'); } catch (e) { return showError(e); }
  main().replaceChildren(el('h1', {}, 'Doctor'), el('pre', { class: 'doctor' }, d.text));
}

window.Triage = { el, api, keyed, stClass, showError, age, duration, fmtDur, navigate, page, main };
document.addEventListener('DOMContentLoaded', () => { live(); route(); });
