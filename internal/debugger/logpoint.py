# triage's logpoints for lldb: a breakpoint's Python command evaluates the
# logpoint's {expressions} in the hit's frame, appends one JSON line to the
# session's event log and returns False, so lldb does not stop. It prints
# nothing (lldb's output is read as command replies); an error is the
# line's message. Loaded into lldb's interpreter by exec.
import datetime, json, re, lldb
triage_lp_P = globals().get('triage_lp_P', {})

def triage_lp_add(bid, our, path, parts, cap, most):
    triage_lp_P[bid] = (our, path, json.loads(parts), cap, most)

def triage_lp_error(expr, err):
    lines = [l for l in (err or '').splitlines() if l.startswith('error:')]
    why = re.sub(r'^error: (<user expression \d+>:\d+:\d+: )?', '', lines[-1]) if lines else 'no value'
    return '<error: %s: %s>' % (expr, why.strip())

def triage_lp_value(f, expr):
    v = f.GetValueForVariablePath(expr)
    if not v.IsValid() or v.GetError().Fail():
        v = f.EvaluateExpression(expr)
    if not v.IsValid() or v.GetError().Fail():
        return triage_lp_error(expr, v.GetError().GetCString())
    s = v.GetValue() or v.GetSummary()
    return s if s is not None else str(v)

def triage_lp_where(f):
    loc = f.GetFunctionName() or ''
    le = f.GetLineEntry()
    if le.IsValid() and le.GetFileSpec().GetFilename():
        loc += ' at %s:%d' % (le.GetFileSpec().GetFilename(), le.GetLine())
    return loc

def triage_lp_hit(frame, bp_loc, *rest):
    lp = triage_lp_P.get(bp_loc.GetBreakpoint().GetID())
    if lp is None:
        return False
    our, path, parts, cap, most = lp
    try:
        msg = ''.join(triage_lp_value(frame, p['text']) if p.get('expr') else p['text'] for p in parts)
    except Exception as e:
        msg = '<error: %s>' % e
    if len(msg.encode()) > most:
        msg = msg.encode()[:most].decode(errors='ignore') + '\u2026'
    at = datetime.datetime.now(datetime.timezone.utc).isoformat()
    line = (json.dumps({'at': at, 'bp': our, 'location': triage_lp_where(frame), 'message': msg}) + '\n').encode()
    try:
        with open(path, 'ab') as fh:
            if fh.tell() + len(line) <= cap:
                fh.write(line)
    except Exception:
        pass  # an unwritable log loses the hit; nothing may be printed
    return False
