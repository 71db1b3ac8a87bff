# triage's logpoints for lldb: a breakpoint's Python command evaluates the
# logpoint's {expressions} in the hit's frame, appends one JSON line to the
# session's event log and returns False, so lldb does not stop, unless a
# pause is under way (triage_lp_stop): then the hit is where it stops. It prints
# nothing (lldb's output is read as command replies); an error is the
# line's message. Loaded into lldb's interpreter by exec.
# Per hit it is cheap (BenchmarkLogpoint10000): a location's text is made
# once, and the log stays open unbuffered, one write a hit (so a line is
# whole in the file as soon as the hit returns; nothing waits for a flush).
import datetime, json, os, re, lldb
triage_lp_P = globals().get('triage_lp_P', {})
triage_lp_F = globals().get('triage_lp_F', {})  # path: [file, size]
triage_lp_W = {}  # (breakpoint, location): where
triage_lp_stop = False  # a pause is under way: the next hit stops

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

def triage_lp_write(path, line, cap):
    fs = triage_lp_F.get(path)
    if fs is None:
        fh = open(path, 'ab', buffering=0)
        fs = triage_lp_F[path] = [fh, os.fstat(fh.fileno()).st_size]
    if fs[1] + len(line) <= cap:
        fs[0].write(line)
        fs[1] += len(line)

def triage_lp_hit(frame, bp_loc, *rest):
    bid = bp_loc.GetBreakpoint().GetID()
    lp = triage_lp_P.get(bid)
    if lp is None:
        return False
    our, path, parts, cap, most = lp
    try:
        msg = ''.join(triage_lp_value(frame, p['text']) if p.get('expr') else p['text'] for p in parts)
    except Exception as e:
        msg = '<error: %s>' % e
    if len(msg) > most // 4 and len(msg.encode()) > most:
        msg = msg.encode()[:most].decode(errors='ignore') + '\u2026'
    key = (bid, bp_loc.GetID())
    where = triage_lp_W.get(key)
    if where is None:
        where = triage_lp_W[key] = triage_lp_where(frame)
    at = datetime.datetime.now(datetime.timezone.utc).isoformat()
    line = (json.dumps({'at': at, 'bp': our, 'location': where, 'message': msg}) + '\n').encode()
    try:
        triage_lp_write(path, line, cap)
    except Exception:
        pass  # an unwritable log loses the hit; nothing may be printed
    return triage_lp_stop
