// What a run's kept answer shows between its verdict and its output: the
// evidence (valgrind memcheck's report first, core, the crash site with its
// source, variables and callers, backtrace with the project's frame marked,
// crash reports, a hang's stacks), the next calls as CLI commands, the
// parsed tests (failures first, a pass/fail strip per suite) and the
// diagnostics. Every string goes into
// the document as text (el()).
'use strict';

window.TriageFindings = (() => {
  const { el, keyed } = window.Triage;
  const MAX_CASES = 300; // rows of the cases table; the strip shows them all

  // A test case's status, coloured as a run's.
  const CASE = { passed: 'success', failed: 'failure', crashed: 'crash', errored: 'timeout', skipped: 'other' };

  function loc(file, line, col) {
    if (!file) return '';
    return file + (line ? ':' + line + (col ? ':' + col : '') : '');
  }

  function frames(list) {
    return el('ol', { class: 'frames' }, list.map((f) => el('li', { class: 'frame' + (f.project ? ' project' : ''), title: f.project ? 'the crashing frame in the project\'s code' : null },
      el('span', { class: 'ix' }, '#' + f.index), el('span', { class: 'fn' }, f.function || f.module || '??'),
      f.file ? el('span', { class: 'loc' }, loc(f.file, f.line)) : null)));
  }

  // valgrind memcheck's report (a crash's rerun, or a run under check:
  // memory or leaks): the bad access and its block's allocation and free,
  // and a link to valgrind's whole XML, kept as an output of its own.
  function memcheck(m) {
    const site = (s) => (s && s.file ? loc(s.file, s.line) + (s.function ? ' in ' + s.function : '') : '');
    const sites = [['access', m.site], ['allocated', m.allocated], ['freed', m.freed]].filter(([, s]) => site(s));
    const id = m.output_id && encodeURIComponent(m.output_id);
    return el('div', { class: 'memcheck', id: 'memcheck' },
      el('p', { class: 'mono' + (m.outcome === 'found' ? ' crashed' : '') }, m.summary),
      m.outcome === 'found' && sites.length ? el('ul', { class: 'memsites' }, sites.map(([w, s]) => el('li', { class: 'mono' }, w + ' at ' + site(s)))) : null,
      el('p', { class: 'muted' }, [m.why, m.reason].filter(Boolean).join(' — '),
        id ? [' · ', el('a', { class: 'memxml', href: '/ui/runs/' + id }, "valgrind's XML"), ' (',
          el('a', { href: keyed(`/ui/api/runs/${id}/raw`), download: m.output_id + '.xml' }, 'raw'), ')'] : null));
  }

  // source draws a site's lines, the faulting (or calling) one marked.
  function source(lines) {
    return el('pre', { class: 'source' }, (lines || []).map((l) => el('span', { class: 'src' + (l.current ? ' cur' : '') },
      (l.current ? '> ' : '  ') + String(l.line).padStart(5) + ' | ' + l.text + '\n')));
  }

  function vars(label, vs, cut) {
    if (!(vs && vs.length) && !cut) return null;
    return el('p', { class: 'mono vars' }, label + ': ', (vs || []).map((v, i) => [i ? ', ' : '',
      el('span', { class: 'var' + (v.near_fault ? ' near-fault' : '') }, v.name + ' = ' + v.value)]), cut ? ` (and ${cut} more)` : '');
  }

  function where(x) { return (x.function ? x.function + ' at ' : '') + loc(x.file, x.line) + (x.frame >= 0 ? ` (frame #${x.frame})` : ''); }

  // site is the crash site as the answer shows it (crashsite.WriteText):
  // its source, arguments and locals, the fault address beside the
  // pointers near it, then each caller toward it after the sentence that
  // says which argument it passed.
  function site(s) {
    const near = (s.args || []).concat(s.locals || []).filter((v) => v.near_fault).map((v) => v.name + ' = ' + v.value);
    return el('div', { class: 'site', id: 'site' },
      el('p', { class: 'mono crashed' }, 'crash site: ' + where(s)), source(s.source),
      vars('args', s.args), vars('locals', s.locals, s.vars_cut),
      s.fault_addr ? el('p', { class: 'mono fault' }, 'fault address ' + s.fault_addr + (near.length ? ': ' + near.join(', ') : '')) : null,
      (s.callers || []).map((c) => el('div', { class: 'caller' },
        c.param ? el('p', { class: 'mono passed' }, `\`${c.param}\` is frame #${c.frame}'s \`${c.expr}\``) : null,
        el('p', { class: 'mono' }, 'called from: ' + where(c)), source(c.source), vars('args', c.args), vars('locals', c.locals, c.vars_cut))));
  }

  // next lists the calls the answer suggests, as the CLI commands a
  // person pastes.
  function next(ns) {
    return [el('section', { id: 'next' }, el('h2', {}, 'Next'), el('ul', { class: 'next' }, ns.map((n) => el('li', {},
      el('span', {}, n.text), n.command ? [': ', el('code', { class: 'cmd' }, n.command)] : null))))];
  }

  function evidence(f, e) {
    const items = [];
    if (f.memcheck) items.push(el('h3', {}, 'Memcheck'), memcheck(f.memcheck));
    const cores = new Set(e.cores || []);
    if (f.core && !cores.has(f.core)) items.push(el('p', { class: 'mono' }, 'core dump: ' + f.core));
    for (const c of cores) items.push(el('p', { class: 'mono' }, 'core dump kept: ' + c));
    if (f.no_core) items.push(el('p', { class: 'muted' }, 'no core: ' + f.no_core));
    if (f.crashed_test || f.signal || f.message) {
      items.push(el('p', { class: 'crashed' }, [f.crashed_test && 'test ' + f.crashed_test, f.signal, f.message].filter(Boolean).join(' · ')));
    }
    if (f.site) items.push(el('h3', {}, 'Crash site'), site(f.site));
    if (f.frames && f.frames.length) items.push(el('h3', {}, 'Backtrace (crashing thread)'), frames(f.frames));
    for (const v of f.evidence || []) {
      if (v.kind === 'core_dump' && (v.path === f.core || cores.has(v.path))) continue; // shown above
      if (v.kind === 'backtrace' && f.frames && f.frames.length) continue; // shown as frames
      items.push(el('p', { class: 'mono' }, v.kind.replace('_', ' ') + ': ' + [v.path, v.summary].filter(Boolean).join(' — ')));
    }
    for (const r of f.reports || []) {
      items.push(el('div', { class: 'report' }, el('p', {}, 'crash report' + (r.role ? ' (' + r.role + ')' : '') + ': ' + r.summary),
        el('p', { class: 'mono muted' }, r.path)));
    }
    for (const s of f.stuck || []) {
      items.push(el('div', { class: 'stuck' }, el('h3', {}, 'Stuck: ' + [s.stack, s.reason, s.test && 'in test ' + s.test].filter(Boolean).join(' — ')), frames(s.frames || [])));
    }
    if (f.stacks && f.stacks.length) {
      items.push(el('h3', {}, (f.stuck && f.stuck.length ? 'Other stacks' : 'Stacks') + ' before the kill'),
        f.stacks.map((s) => el('div', { class: 'stack' }, el('p', { class: 'mono' }, s.stack), frames(s.frames || []))));
    }
    if (cores.size === 0 && items.length === 0) return [];
    return [el('section', { id: 'evidence' }, el('h2', {}, 'Evidence'), items)];
  }

  function strip(suites) {
    return el('div', { class: 'strips', 'aria-label': 'pass/fail strip per suite' }, suites.map((s) => el('div', { class: 'strip' },
      el('span', { class: 'suite', title: s.name }, s.name),
      el('span', { class: 'cells' }, s.cells.map((c) => el('span', {
        class: 'cell bg-' + (CASE[c.status] || 'other'), title: c.name + ': ' + c.status, 'data-status': c.status,
      }))))));
  }

  function tests(t) {
    const tot = t.totals || {};
    const counts = ['failed', 'crashed', 'errored', 'passed', 'skipped'].filter((k) => tot[k]).map((k) => tot[k] + ' ' + k);
    const rows = t.cases.slice(0, MAX_CASES).map((c) => el('tr', { class: 'case' },
      el('td', { class: 'st-' + (CASE[c.status] || 'other') }, c.status),
      el('td', { class: 'mono name' }, (c.suite ? c.suite + ' › ' : '') + c.name),
      el('td', { class: 'mono msg' }, (c.message || '').trim()),
      el('td', { class: 'mono loc' }, loc(c.file, c.line))));
    return [el('section', { id: 'tests' }, el('h2', {}, 'Tests' + (counts.length ? ': ' + counts.join(', ') : '')),
      strip(t.suites),
      (t.build_errors || []).concat(t.runner_errors || []).map((x) => el('p', { class: 'error mono' }, x)),
      rows.length ? el('table', { class: 'cases' }, el('thead', {}, el('tr', {}, ['status', 'test', 'message', 'where'].map((h) => el('th', {}, h)))), el('tbody', {}, rows)) : null,
      t.cases.length > MAX_CASES ? el('p', { class: 'muted' }, `and ${t.cases.length - MAX_CASES} more (passed or skipped)`) : null)];
  }

  function diagnostics(ds) {
    return [el('section', { id: 'diagnostics' }, el('h2', {}, 'Diagnostics'),
      el('ul', { class: 'diags' }, ds.map((d) => el('li', { class: 'diag ' + (d.kind === 'error' || d.kind === 'failure' ? 'st-failure' : 'st-other') },
        el('span', { class: 'kind' }, d.kind), ' ',
        d.file ? el('span', { class: 'loc' }, loc(d.file, d.line, d.col)) : null, d.file ? ': ' : '',
        el('span', { class: 'msg' }, d.message), d.count > 1 ? el('span', { class: 'muted' }, ' ×' + d.count) : null))))];
  }

  const runLink = (id, label) => (id ? el('a', { class: 'runlink', href: '/ui/runs/' + encodeURIComponent(id) }, label) : label);

  // repeat is a repeat's tally: its runs, each failing test's distinct
  // failures (grouped by signature), each linked to the output of the
  // first run that showed it.
  function repeat(r) {
    const head = r.failed_runs ? `${r.failed_runs} of ${r.runs} runs failed` : `all ${r.runs} runs passed`;
    return [el('section', { id: 'repeat' }, el('h2', {}, 'Runs: ' + head + (r.runs < r.asked ? ` (${r.asked} asked for)` : '')),
      r.note ? el('p', { class: 'muted' }, r.note) : null,
      (r.tests || []).map((t) => el('div', { class: 'rtest' },
        el('h3', { class: t.failed < r.runs ? 'flaky' : 'always' }, `${t.test || 'the run'}: failed ${t.failed} of ${r.runs} runs` + (t.failed < r.runs ? ' (flaky)' : '')),
        el('table', { class: 'groups' }, el('thead', {}, el('tr', {}, ['runs', 'kind', 'failure', 'first'].map((h) => el('th', {}, h)))),
          el('tbody', {}, (t.failures || []).map((g) => el('tr', { class: 'group' },
            el('td', { class: 'count' }, g.count + '×'), el('td', { class: 'st-' + (CASE[g.kind.split(':')[0]] || 'other') }, g.kind),
            el('td', { class: 'mono msg' }, [g.site && 'in ' + g.site, g.message].filter(Boolean).join(': ')),
            el('td', {}, runLink(g.first_output, 'run ' + g.first_run))))))))) ];
  }

  // bisect is a bisect's steps: each revision judged, its mark and
  // verdict linked to its output, and the first bad commit.
  function bisect(b) {
    const first = b.first_bad;
    const isFirst = (s) => first && first.hash.startsWith(s.revision);
    return [el('section', { id: 'bisect' }, el('h2', {}, `Bisect: ${b.steps.length} steps over ${b.revisions} revisions`),
      first ? el('p', { class: 'firstbad mono' }, 'first bad commit: ' + first.hash + ' ' + first.subject + ' — ' + first.author + ', ' + first.date) : null,
      el('table', { class: 'steps' }, el('thead', {}, el('tr', {}, ['step', 'revision', 'subject', 'mark', 'verdict'].map((h) => el('th', {}, h)))),
        el('tbody', {}, b.steps.map((s) => el('tr', { class: 'bstep' + (isFirst(s) ? ' first' : ''), 'data-mark': s.mark },
          el('td', {}, String(s.step)), el('td', { class: 'mono' }, s.revision), el('td', {}, s.subject),
          el('td', { class: 'mark-' + s.mark }, s.mark + (isFirst(s) ? ' (first bad)' : '')),
          el('td', { class: 'mono msg' }, runLink(s.output_id, s.verdict), s.why ? el('span', { class: 'muted' }, ' — ' + s.why) : null))))))];
  }

  // render returns the sections of run e's findings (its cores alone when
  // no answer was kept with it).
  function render(e) {
    const f = e.findings || {};
    return [
      ...(f.bisect ? bisect(f.bisect) : []),
      ...(f.repeat ? repeat(f.repeat) : []),
      ...evidence(f, e),
      ...(f.next && f.next.length ? next(f.next) : []),
      ...(f.tests ? tests(f.tests) : []),
      ...(f.diagnostics && f.diagnostics.length ? diagnostics(f.diagnostics) : []),
      ...(f.cut && f.cut.length ? [el('p', { class: 'muted' }, 'The kept answer was cut to its bound: ' + f.cut.join('; '))] : []),
    ];
  }

  return { render };
})();
