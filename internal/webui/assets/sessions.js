// The Sessions page: debug sessions (state, last stop, top frames,
// breakpoints), dump sessions (engines, command history) and background
// processes with a live tail. It shows what the server's managers hold and
// reloads on the live events, keeping the tails that are open.
'use strict';
(() => {
  const { el, api, stClass, showError, age, page, main } = window.Triage;
  const tails = new Map(); // process id -> { out, t }: open live tails
  let seq = 0; // the latest render: an older answer arriving late is dropped

  function show() {
    page.reload = render;
    page.dispose = () => {
      for (const x of tails.values()) x.t.stop = true;
      tails.clear();
    };
    return render();
  }

  async function render() {
    const mine = ++seq;
    let s;
    try { s = await api('sessions'); } catch (e) { return showError(e); }
    if (mine !== seq || page.name !== 'sessions') return;
    const y = window.scrollY;
    // A redraw moves the open tails into the new table, which scrolls them
    // back to their top: each goes back where it was, at its end if it was.
    const kept = [...tails.values()].map(({ out }) => [out, atEnd(out), out.scrollTop]);
    main().replaceChildren(el('h1', {}, 'Sessions'),
      el('h2', {}, 'Debug sessions'), list(s.debug, debugCard, 'No debug session.'),
      el('h2', {}, 'Dump sessions'), list(s.dumps, dumpCard, 'No dump session.'),
      el('h2', {}, 'Background processes'), processes(s.processes));
    window.scrollTo(0, y);
    for (const [out, end, top] of kept) out.scrollTop = end ? out.scrollHeight : top;
  }

  // atEnd: a tail shows its last line (it follows new ones); one scrolled
  // up to read stays where it is.
  function atEnd(out) { return out.scrollTop + out.clientHeight >= out.scrollHeight - 4; }

  function list(items, card, none) {
    return items.length ? el('div', { class: 'cards' }, items.map(card)) : el('p', { class: 'muted' }, none);
  }

  const base = (p) => p.split('/').pop();
  const STATE = { running: 'running', stopped: 'interrupted', exited: 'success', dead: 'failure', not_started: 'incomplete' };

  function badge(text, cls) { return el('span', { class: 'badge ' + cls }, text); }

  // ---- debug sessions ----

  function debugCard(d) {
    const st = d.state, stop = st.last_stop;
    return el('section', { class: 'session debug', 'data-id': d.id },
      el('h3', {}, el('span', { class: 'mono' }, d.id), d.current ? ' (current) ' : ' ',
        badge(st.status, 'bg-' + (STATE[st.status] || 'other')), ' ', el('span', { class: 'muted' }, d.backend)),
      el('dl', { class: 'meta' },
        el('dt', {}, d.core ? 'core' : 'program'), el('dd', {}, d.core ? d.core + ' of ' + d.target : d.target),
        d.ssh_host ? [el('dt', {}, 'host'), el('dd', {}, d.ssh_host)] : null,
        st.pid ? [el('dt', {}, 'pid'), el('dd', {}, st.pid)] : null,
        el('dt', {}, 'last stop'), el('dd', { class: 'last-stop' }, stop ? stopText(stop) : 'none yet'),
        st.error ? [el('dt', {}, 'error'), el('dd', { class: 'error' }, st.error)] : null),
      el('h4', {}, stop ? 'Top frames at the last stop' : 'Top frames'),
      d.frames && d.frames.length ? el('ol', { class: 'frames' }, d.frames.map(frameItem))
        : el('p', { class: 'muted' }, stop ? 'Not known for this stop: the server asks the debugger once, between the agent\'s calls.' : 'No stop yet.'),
      el('h4', {}, 'Breakpoints'),
      d.breakpoints.length ? el('table', { class: 'bps' },
        el('tr', {}, ['id', 'location', 'resolved', 'state', 'hits'].map((h) => el('th', {}, h))),
        d.breakpoints.map(bpRow)) : el('p', { class: 'muted' }, 'No breakpoint.'));
  }

  function stopText(s) {
    let t = s.reason;
    if (s.signal) t += ' ' + s.signal;
    if (s.exit_code !== undefined && s.exit_code !== null) t += ' (code ' + s.exit_code + ')';
    if (s.description && s.description !== s.reason) t += ': ' + s.description;
    if (s.thread_id) t += ', thread ' + s.thread_id;
    return t + ', ' + age(s.at);
  }

  function frameItem(f) {
    return el('li', {},
      el('span', { class: 'ix' }, '#' + f.index), el('span', { class: 'fn' }, f.function || f.address),
      f.file && f.line ? el('span', { class: 'loc', title: f.file }, base(f.file) + ':' + f.line) : null);
  }

  function bpRow(b) {
    const spec = b.spec.function || b.spec.file + ':' + b.spec.line;
    const cond = b.spec.condition ? ' if ' + b.spec.condition : '';
    return el('tr', { 'data-bp': b.id },
      el('td', {}, b.id), el('td', { class: 'mono' }, spec + cond),
      el('td', { class: 'mono', title: b.file || '' }, b.file ? base(b.file) + ':' + b.line : ''),
      el('td', { class: b.verified ? 'st-success' : 'st-interrupted' }, b.verified ? 'verified' : 'pending' + (b.message ? ': ' + b.message : '')),
      el('td', { class: 'hits' }, b.hits));
  }

  // ---- dump sessions ----

  function dumpCard(d) {
    return el('section', { class: 'session dump', 'data-id': d.id },
      el('h3', {}, el('span', { class: 'mono' }, d.id), ' ', d.kind, d.format ? el('span', { class: 'muted' }, ' (' + d.format + ')') : null),
      el('dl', { class: 'meta' },
        el('dt', {}, 'dump'), el('dd', {}, d.dump),
        d.program ? [el('dt', {}, d.kind === 'kernel vmcore' ? 'vmlinux' : 'program'), el('dd', {}, d.program)] : null,
        d.host ? [el('dt', {}, 'host'), el('dd', {}, d.host)] : null,
        el('dt', {}, 'opened'), el('dd', {}, age(d.opened))),
      el('h4', {}, 'Engines'),
      el('table', { class: 'engines' }, el('tr', {}, ['engine', 'state', 'pid', 'context'].map((h) => el('th', {}, h))),
        d.engines.map((e) => el('tr', { 'data-engine': e.engine },
          el('td', {}, e.engine), el('td', { class: engineClass(e.state) }, e.state + (e.error ? ': ' + e.error : '')),
          el('td', {}, e.pid || ''), el('td', { class: 'mono' }, contextText(e.context))))),
      el('h4', {}, 'Command history'),
      d.history.length ? el('table', { class: 'history' },
        el('tr', {}, ['when', 'engine', 'command', '', 'output'].map((h) => el('th', {}, h))),
        d.history.map(historyRow)) : el('p', { class: 'muted' }, 'No command yet.'));
  }

  function engineClass(state) {
    return { running: 'st-running', failed: 'st-failure', dead: 'st-failure' }[state] || 'st-other';
  }

  function contextText(c) {
    if (!c || !c.set) return 'initial';
    if (c.task) return 'task ' + c.task + (c.pid ? ' (pid ' + c.pid + ')' : '');
    return 'thread ' + c.thread + ', frame ' + c.frame;
  }

  function historyRow(h) {
    return el('tr', {},
      el('td', { title: h.at }, age(h.at)), el('td', {}, h.engine), el('td', { class: 'mono cmd' }, h.command),
      el('td', { class: h.cached ? 'cached' : 'ran' }, h.cached ? 'cached' : 'ran'),
      el('td', {}, h.output_id ? el('a', { href: '/ui/runs/' + encodeURIComponent(h.output_id) }, 'output') : null,
        h.error ? el('span', { class: 'error' }, ' ' + h.error) : null));
  }

  // ---- background processes ----

  function processes(ps) {
    if (!ps.length) return el('p', { class: 'muted' }, 'No background process.');
    for (const id of tails.keys()) {
      if (!ps.some((p) => p.id === id)) { tails.get(id).t.stop = true; tails.delete(id); }
    }
    return el('table', { class: 'processes' }, el('tr', {}, ['id', 'command', 'pid', 'state', ''].map((h) => el('th', {}, h))),
      ps.map(processRows));
  }

  function processRows(p) {
    const open = tails.get(p.id);
    const out = open ? open.out : el('pre', { class: 'tail', hidden: true });
    const btn = el('button', {
      disabled: !!open,
      onclick: () => { btn.disabled = true; out.hidden = false; tails.set(p.id, { out, t: tail(p, out) }); },
    }, 'Live tail');
    return [el('tr', {},
      el('td', { class: 'mono' }, p.id), el('td', { class: 'argv' }, p.argv.join(' ')), el('td', {}, p.pid),
      el('td', { class: p.running ? 'st-running' : stClass('st-', p.status) }, p.running ? 'running' : p.verdict),
      el('td', {}, el('a', { href: '/ui/runs/' + encodeURIComponent(p.output_id) }, 'output'), ' ', btn)),
    el('tr', {}, el('td', { colspan: 5 }, out))];
  }

  // tail follows a background process's output with long polls.
  function tail(p, out) {
    const t = { stop: false };
    (async () => {
      let cursor = 0;
      while (!t.stop) {
        let v;
        try { v = await api(`processes/${encodeURIComponent(p.id)}/output?cursor=${cursor}&wait_ms=5000`); } catch (e) {
          out.append(document.createTextNode('[' + e.message + ']\n'));
          return;
        }
        const follow = atEnd(out);
        for (const l of v.lines) out.append(document.createTextNode(l + '\n'));
        while (out.childNodes.length > 2000) out.firstChild.remove();
        if (follow) out.scrollTop = out.scrollHeight;
        cursor = v.offset + v.lines.length;
        if (!v.lines.length && !v.more) {
          const s = await api('sessions').catch(() => null);
          const now = s && s.processes.find((x) => x.id === p.id);
          if (!now || !now.running) { out.append(document.createTextNode('[ended: ' + (now ? now.verdict : 'gone') + ']\n')); return; }
        }
      }
    })();
    return t;
  }

  window.TriageSessions = { show };
})();
