// The Runs page: every stored entry, newest first, filtered and paged on
// the server, reloaded live, navigable from the keyboard (j/k or arrows,
// Enter to open, / to filter).
'use strict';

window.TriageRuns = (() => {
  const { el, api, stClass, showError, age, duration, fmtDur, navigate, page, main } = window.Triage;
  const LIMIT = 50;
  let sel = 0; // selected row
  let selID = '';

  function params() {
    const q = new URLSearchParams(location.search);
    return { status: q.get('status') || '', tool: q.get('tool') || '', q: q.get('q') || '', offset: +q.get('offset') || 0 };
  }

  function setParams(p) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(p)) if (v) q.set(k, v);
    const s = q.toString();
    history.replaceState(null, '', '/ui/' + (s ? '?' + s : ''));
  }

  async function show() {
    const p = params();
    const status = el('select', { 'aria-label': 'status' }, el('option', { value: '' }, 'any status'),
      ['success', 'failure', 'crash', 'timeout', 'interrupted', 'running', 'incomplete'].map((s) => el('option', { value: s }, s)));
    const tool = el('select', { 'aria-label': 'tool' }, el('option', { value: '' }, 'any tool'));
    const text = el('input', { type: 'search', placeholder: 'filter text (verdict, command, directory)', size: 40, 'aria-label': 'text' });
    status.value = p.status;
    text.value = p.q;
    const list = el('div', { id: 'runs' });
    const apply = () => { setParams({ status: status.value, tool: tool.value, q: text.value, offset: 0 }); load(list); };
    status.addEventListener('change', apply);
    tool.addEventListener('change', apply);
    let timer;
    text.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(apply, 250); });
    main().replaceChildren(el('h1', {}, 'Runs'),
      el('div', { class: 'filters' }, status, tool, text, el('span', { class: 'kbd' }, 'j/k or ↑/↓ move · Enter opens · / filters')), list);
    page.reload = () => load(list);
    page.keydown = (ev) => keydown(ev, list, text);
    api('tools').then((ts) => {
      for (const t of ts) tool.append(el('option', { value: t }, t));
      tool.value = p.tool;
    }).catch(() => {});
    load(list);
  }

  let asked = 0, drawn = 0; // live reloads may answer out of order: an older answer is not drawn over a newer

  async function load(list) {
    const n = ++asked;
    const p = params();
    const q = new URLSearchParams({ status: p.status, tool: p.tool, q: p.q, offset: p.offset, limit: LIMIT });
    let l;
    try { l = await api('runs?' + q); } catch (e) { return showError(e); }
    if (page.name !== 'runs' || n < drawn) return;
    drawn = n;
    const i = l.entries.findIndex((e) => e.id === selID);
    sel = i >= 0 ? i : Math.min(sel, Math.max(l.entries.length - 1, 0));
    const rows = l.entries.map((e, i) => el('tr', {
      class: 'run' + (i === sel ? ' sel' : ''), tabindex: -1, 'data-id': e.id, 'aria-selected': i === sel,
      onclick: (ev) => { if (!ev.target.closest('a')) open(e.id); }, // a link navigates by itself
    },
    el('td', { class: 'verdict ' + stClass('st-', e.status) }, el('a', { class: 'open', href: href(e.id) },
      e.verdict || (e.status === 'running' ? e.progress || 'running… (' + e.lines + (e.lines === 1 ? ' line' : ' lines') + ' so far)' : e.status))),
    el('td', {}, e.tool), el('td', { class: 'argv' }, (e.argv || []).join(' ')),
    el('td', { title: e.created }, age(e.created)), el('td', {}, fmtDur(duration(e))), el('td', {}, e.lines)));
    const pager = el('div', { class: 'pager' },
      el('button', { disabled: p.offset === 0, onclick: () => { setParams({ ...p, offset: Math.max(0, p.offset - LIMIT) }); load(list); } }, '← newer'),
      el('span', { class: 'muted' }, l.total ? `${p.offset + 1}–${p.offset + l.entries.length} of ${l.total}` : 'no runs'),
      el('button', { disabled: p.offset + l.entries.length >= l.total, onclick: () => { setParams({ ...p, offset: p.offset + LIMIT }); load(list); } }, 'older →'));
    list.replaceChildren(timeline(l.entries),
      l.entries.length ? el('table', {}, el('thead', {}, el('tr', {}, ['verdict', 'tool', 'command', 'age', 'duration', 'lines'].map((h) => el('th', {}, h)))), el('tbody', {}, rows))
        : el('p', { class: 'muted' }, 'No run matches.'),
      pager);
    if (rows[sel]) selID = rows[sel].dataset.id;
  }

  // timeline draws this page's runs, oldest left, as bars by duration
  // coloured by verdict.
  function timeline(entries) {
    const ds = entries.map((e) => duration(e) ?? (Date.now() - new Date(e.created)) / 1000);
    const top = Math.max(...ds, 0.001);
    const bars = entries.map((e, i) => {
      const b = el('span', { class: stClass('bg-', e.status), title: `${e.tool}: ${e.verdict || e.status} (${fmtDur(duration(e))})` });
      b.style.height = Math.max(8, Math.round(100 * Math.sqrt(ds[i] / top))) + '%';
      return b;
    }).reverse();
    return el('div', { class: 'timeline', 'aria-label': 'timeline of these runs' }, bars);
  }

  // href is a run's page: each row's verdict links to it, so a row opens
  // in a new tab, is copied or bookmarked as any link.
  function href(id) { return '/ui/runs/' + encodeURIComponent(id); }

  function open(id) { navigate(href(id)); }

  function keydown(ev, list, text) {
    if (ev.target === text) {
      if (ev.key === 'Escape' || ev.key === 'ArrowDown' || ev.key === 'Enter') { text.blur(); list.querySelector('tr.sel')?.focus(); ev.preventDefault(); }
      return;
    }
    if (ev.target.tagName === 'INPUT' || ev.target.tagName === 'SELECT') return;
    const rows = [...list.querySelectorAll('tr.run')];
    if (!rows.length) return;
    let next = sel;
    if (ev.key === 'j' || ev.key === 'ArrowDown') next = Math.min(sel + 1, rows.length - 1);
    else if (ev.key === 'k' || ev.key === 'ArrowUp') next = Math.max(sel - 1, 0);
    else if (ev.key === 'Enter') return open(rows[sel].dataset.id);
    else if (ev.key === '/') { ev.preventDefault(); return text.focus(); }
    else return;
    ev.preventDefault();
    rows[sel]?.classList.remove('sel');
    rows[sel]?.setAttribute('aria-selected', 'false');
    sel = next;
    selID = rows[sel].dataset.id;
    rows[sel].classList.add('sel');
    rows[sel].setAttribute('aria-selected', 'true');
    rows[sel].focus();
  }

  return { show };
})();
