// A run's page: its verdict (its progress while it runs), what its call's
// kept answer shows (findings.js: evidence, tests, diagnostics), and the output
// viewer, which asks the server for one page of lines at a time (an
// output of any size is never loaded whole), searches with RE2 on the
// server, marks the matches, jumps to a line and links to one (#L1234).
'use strict';

window.TriageRun = (() => {
  const { el, api, keyed, stClass, showError, duration, fmtDur, page, main } = window.Triage;
  const PAGE = 200;

  let shown = 0; // the latest show: a page left before its entry came is not drawn

  async function show(id) {
    const me = ++shown;
    let e;
    try { e = await api('runs/' + encodeURIComponent(id)); } catch (err) { return showError(err); }
    if (me !== shown || page.name !== 'run') return;
    const head = el('div', { id: 'run-head' });
    renderHead(head, e);
    const v = viewer(id, e);
    main().replaceChildren(head, v.node);
    let asked = 0, drawn = 0; // live reloads may answer out of order: the latest asked wins
    page.reload = async () => {
      if (e.status !== 'running') return;
      const n = ++asked;
      let now;
      try { now = await api('runs/' + encodeURIComponent(id)); } catch { return; }
      if (n < drawn || me !== shown) return;
      drawn = n;
      e = now;
      renderHead(head, e);
      v.refresh(e);
    };
    page.keydown = v.keydown;
    const onHash = () => v.gotoHash();
    window.addEventListener('hashchange', onHash);
    page.dispose = () => window.removeEventListener('hashchange', onHash);
    v.gotoHash() || v.load(0);
  }

  // facts are how the entry's work ended and took: a process's exit code
  // (or signal) and duration; a repeat's runs, a bisect's steps and their
  // total time, which no one process had (its entry is kept at the end).
  function facts(e) {
    const f = e.findings || {};
    const kept = new Date(e.created).toLocaleString();
    if (f.repeat) {
      const r = f.repeat;
      return [['runs', `${r.runs}${r.runs < r.asked ? ` of ${r.asked} asked for` : ''}, ${r.failed_runs} failed`], ['kept', kept]];
    }
    if (f.bisect) {
      const b = f.bisect, ms = b.steps.reduce((s, x) => s + (x.duration_ms || 0), 0);
      return [['steps', `${b.steps.length} over ${b.revisions} revisions`], ['total time', fmtDur(ms / 1000)], ['kept', kept]];
    }
    return [f.ending ? ['signal', f.ending] : ['exit code', e.exit_code], ['started', kept], ['duration', fmtDur(duration(e))]];
  }

  function renderHead(head, e) {
    const meta = [['id', e.id], ['tool', e.tool], ['command', (e.argv || []).join(' ')], ['directory', e.cwd],
      ['status', e.status], ...facts(e), ['lines', e.lines], ['bytes', e.bytes], ['complete', e.complete ? 'yes' : 'no']];
    head.replaceChildren(
      el('p', { class: 'muted' }, el('a', { href: '/ui/' }, '← Runs')),
      el('div', { class: 'verdict-line ' + stClass('st-', e.status), id: 'verdict' }, e.verdict || (e.status === 'running' ? 'running…' : e.status)),
      ...(e.status === 'running' && e.progress ? [el('p', { class: 'progress st-running', id: 'progress' }, e.progress)] : []),
      el('dl', { class: 'meta' }, meta.filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => [el('dt', {}, k), el('dd', {}, v)])),
      ...window.TriageFindings.render(e),
      el('h2', {}, 'Output'));
  }

  function viewer(id, entry) {
    const st = { offset: 0, total: entry.lines, q: '', hits: [], hit: -1, target: -1 };
    const lines = el('div', { class: 'viewer', id: 'output', role: 'log' });
    const search = el('input', { type: 'search', placeholder: 'search (RE2)', size: 30, 'aria-label': 'search' });
    const count = el('span', { class: 'muted', id: 'hits' });
    const go = el('input', { type: 'number', min: 1, placeholder: 'line', size: 8, 'aria-label': 'go to line' });
    const where = el('span', { class: 'muted', id: 'where' });
    const prev = el('button', { onclick: () => load(Math.max(0, st.offset - PAGE)) }, '← lines');
    const next = el('button', { onclick: () => load(st.offset + PAGE) }, 'lines →');
    search.addEventListener('keydown', (ev) => {
      if (ev.key !== 'Enter') return;
      ev.preventDefault();
      if (search.value === st.q && st.hits.length) step(ev.shiftKey ? -1 : 1); else find(search.value);
    });
    go.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') goLine(+go.value); });
    const node = el('section', {},
      el('div', { class: 'toolbar' }, search,
        el('button', { onclick: () => step(-1), title: 'previous match (Shift+Enter)' }, '↑'),
        el('button', { onclick: () => step(1), title: 'next match (Enter)' }, '↓'), count,
        go, el('button', { onclick: () => goLine(+go.value) }, 'go'), prev, next, where,
        el('a', { href: keyed(`/ui/api/runs/${encodeURIComponent(id)}/raw`), download: id + '.log' }, 'raw')),
      lines);

    async function load(offset, target) {
      const q = new URLSearchParams({ offset, limit: PAGE });
      if (st.q) q.set('q', st.q);
      let p;
      try { p = await api(`runs/${encodeURIComponent(id)}/lines?${q}`); } catch (e) {
        lines.replaceChildren(el('p', { class: 'error' }, e.message));
        return;
      }
      st.offset = p.offset;
      st.total = p.total_lines;
      lines.replaceChildren(...p.lines.map((l, i) => line(p.offset + i, l, p.marks ? p.marks[i] : null)));
      if (!p.lines.length) lines.append(el('p', { class: 'muted' }, 'No output.'));
      where.textContent = p.lines.length ? `lines ${p.offset + 1}–${p.offset + p.lines.length} of ${p.total_lines}` : '';
      prev.disabled = p.offset === 0;
      next.disabled = !p.more;
      if (target !== undefined) mark(target);
    }

    // line draws one output line: a link to it, then its text with the
    // search's matches in <mark>; all text goes in as text nodes.
    function line(n, text, marks) {
      const tx = el('span', { class: 'tx' });
      let at = 0;
      for (const [a, b] of marks || []) {
        tx.append(document.createTextNode(text.slice(at, a)), el('mark', {}, text.slice(a, b)));
        at = b;
      }
      tx.append(document.createTextNode(text.slice(at)));
      return el('div', { class: 'line', id: 'L' + (n + 1) }, el('a', { class: 'ln', href: '#L' + (n + 1) }, n + 1), tx);
    }

    function mark(n) {
      lines.querySelector('.line.target')?.classList.remove('target');
      const row = document.getElementById('L' + (n + 1));
      if (!row) return;
      row.classList.add('target');
      for (const m of lines.querySelectorAll('mark.cur')) m.classList.remove('cur');
      if (st.hit >= 0 && st.hits[st.hit] && st.hits[st.hit].line === n) row.querySelector('mark')?.classList.add('cur');
      row.scrollIntoView({ block: 'center' });
    }

    function goLine(n) {
      if (!(n >= 1)) return;
      n = Math.min(n, Math.max(st.total, 1)) - 1;
      const off = Math.floor(n / PAGE) * PAGE;
      if (off === st.offset && lines.querySelector('.line')) mark(n); else load(off, n);
    }

    async function find(q) {
      st.q = q;
      st.hits = [];
      st.hit = -1;
      if (!q) { count.textContent = ''; return load(st.offset); }
      count.textContent = 'searching…';
      let r;
      try { r = await api(`runs/${encodeURIComponent(id)}/search?q=${encodeURIComponent(q)}`); } catch (e) {
        count.textContent = e.message;
        return;
      }
      st.hits = r.hits;
      if (!r.hits.length) { count.textContent = 'no match'; return load(st.offset); }
      st.hit = 0;
      showHit(r);
    }

    function showHit(r) {
      const total = r ? r.total : st.total_hits;
      if (r) st.total_hits = r.total;
      count.textContent = `${st.hit + 1} / ${st.hits.length}` + (total > st.hits.length ? ` (of ${total} matches; narrow the pattern)` : '');
      const n = st.hits[st.hit].line;
      history.replaceState(null, '', '#L' + (n + 1));
      const off = Math.floor(n / PAGE) * PAGE;
      load(off, n); // reloaded even on the same page: its marks follow the pattern
    }

    function step(d) {
      if (!st.hits.length) return;
      st.hit = (st.hit + d + st.hits.length) % st.hits.length;
      showHit();
    }

    function gotoHash() {
      const m = location.hash.match(/^#L(\d+)$/);
      if (!m) return false;
      goLine(+m[1]);
      return true;
    }

    function keydown(ev) {
      if (ev.target.tagName === 'INPUT') return;
      if (ev.key === '/') { ev.preventDefault(); search.focus(); } else if (ev.key === 'n') step(1); else if (ev.key === 'N') step(-1);
    }

    // refresh shows new lines of a running output when its last page is open.
    function refresh(e) {
      if (e.lines !== st.total && st.offset + PAGE >= st.total) load(st.offset);
      st.total = e.lines;
    }

    return { node, load, gotoHash, keydown, refresh };
  }

  return { show };
})();
