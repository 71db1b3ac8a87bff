# triage's software watchpoints for lldb: step the selected thread one
# instruction at a time and compare the watched bytes after each step.
# Calls into code without line information (libc through its PLT) are run
# at full speed with a step-out; a write inside one is reported at the
# calling line. Loaded into lldb's interpreter by exec; every answer is one
# line "TRIAGE-WATCH {json}".
import json, time, lldb
triage_sw_W = globals().get('triage_sw_W', {})

def triage_sw_say(r):
    print('TRIAGE-WATCH ' + json.dumps(r))

def triage_sw_add(wid, expr):
    f = lldb.debugger.GetSelectedTarget().GetProcess().GetSelectedThread().GetSelectedFrame()
    v = f.GetValueForVariablePath(expr)
    if not v.IsValid() or v.GetError().Fail():
        v = f.EvaluateExpression(expr)
    a = v.GetLoadAddress()
    if not v.IsValid() or v.GetError().Fail() or a == lldb.LLDB_INVALID_ADDRESS or v.GetByteSize() == 0:
        return triage_sw_say({'kind': 'error', 'error': 'not an lvalue in memory: ' + str(v.GetError())})
    triage_sw_W[wid] = (a, v.GetByteSize(), v.GetType())
    triage_sw_say({'kind': 'added', 'addr': a, 'size': v.GetByteSize()})

def triage_sw_del(wid):
    triage_sw_W.pop(wid, None)

def triage_sw_value(t, b, ty):
    p = t.GetProcess()
    d = lldb.SBData()
    d.SetData(lldb.SBError(), b, p.GetByteOrder(), p.GetAddressByteSize())
    v = t.CreateValueFromData('v', d, ty)
    return v.GetValue() or v.GetSummary() or b.hex()

def triage_sw_stops(t):
    stops = {}
    for bp in t.breakpoint_iter():
        if not bp.IsEnabled():
            continue
        for loc in bp:
            if loc.IsEnabled():
                stops[loc.GetLoadAddress()] = bp
    return stops

def triage_sw_takes(th, bp):
    if bp.GetIgnoreCount() > 0:
        bp.SetIgnoreCount(bp.GetIgnoreCount() - 1)
        return False
    c = bp.GetCondition()
    return not c or th.GetFrameAtIndex(0).EvaluateExpression(c).GetValueAsUnsigned() != 0

def triage_sw_step(th, le):
    """One instruction (a call into code without line information run to
    its return): the top frame after it, None if the target stopped by
    itself."""
    th.StepInstruction(False)
    p = th.GetProcess()
    if p.GetState() != lldb.eStateStopped or th.GetStopReason() not in (lldb.eStopReasonTrace, lldb.eStopReasonPlanComplete):
        return None
    f = th.GetFrameAtIndex(0)
    if le.IsValid() and not f.GetLineEntry().IsValid():
        th.StepOut()
        if p.GetState() != lldb.eStateStopped or th.GetStopReason() not in (lldb.eStopReasonTrace, lldb.eStopReasonPlanComplete):
            return None
        f = th.GetFrameAtIndex(0)
    return f

def triage_sw_changed(t, th, old):
    p, err = t.GetProcess(), lldb.SBError()
    if p.GetState() != lldb.eStateStopped:
        return None
    for w, (a, size, ty) in triage_sw_W.items():
        b = p.ReadMemory(a, size, err)
        if w in old and b != old[w]:
            return {'kind': 'changed', 'id': w, 'old': triage_sw_value(t, old[w], ty), 'new': triage_sw_value(t, b, ty)}
    return None

# triage_sw_pending is the pc a write's stop left at a breakpoint's
# location: the next run stops there first, as the breakpoint would have.
triage_sw_pending = globals().get('triage_sw_pending')

def triage_sw_loop(t, th, limit, seconds):
    global triage_sw_pending
    p, err = t.GetProcess(), lldb.SBError()
    old = dict((w, p.ReadMemory(a, n, err)) for w, (a, n, ty) in triage_sw_W.items())
    stops, end, n = triage_sw_stops(t), time.time() + seconds, 0
    pc = th.GetFrameAtIndex(0).GetPC()
    pending, triage_sw_pending = triage_sw_pending, None
    if pending == pc and pc in stops and triage_sw_takes(th, stops[pc]):
        return {'kind': 'breakpoint', 'bp': stops[pc].GetID(), 'steps': 0}
    f = th.GetFrameAtIndex(0)
    while True:
        if n >= limit or time.time() > end:
            return {'kind': 'limit' if n >= limit else 'time', 'steps': n}
        le, at = f.GetLineEntry(), f.GetPC()
        n += 1
        f = triage_sw_step(th, le)
        r = triage_sw_changed(t, th, old)
        if r is not None:
            fn = t.ResolveLoadAddress(at).GetSymbol().GetName()
            r.update({'file': le.GetFileSpec().fullpath or '', 'line': le.GetLine(), 'function': fn or '', 'steps': n})
            pc = th.GetFrameAtIndex(0).GetPC()
            triage_sw_pending = pc if pc in stops else None
            return r
        if f is None:
            return triage_sw_other(p, th, n)
        bp = stops.get(f.GetPC())
        if bp is not None and triage_sw_takes(th, bp):
            return {'kind': 'breakpoint', 'bp': bp.GetID(), 'steps': n}

# triage_sw_other describes a stop the target made by itself (an exit, a
# signal, a breakpoint hit while stepping out): an adapter that did not see
# it (the stepping hid its events) is told from this.
def triage_sw_other(p, th, n):
    r = {'kind': 'other', 'steps': n, 'state': lldb.SBDebugger.StateAsCString(p.GetState())}
    if p.GetState() == lldb.eStateExited:
        r['exit'] = p.GetExitStatus()
    elif p.GetState() == lldb.eStateStopped:
        r['description'] = th.GetStopDescription(256)
        if th.GetStopReason() == lldb.eStopReasonSignal:
            r['signal'] = p.GetUnixSignals().GetSignalAsCString(th.GetStopReasonDataAtIndex(0))
        elif th.GetStopReason() == lldb.eStopReasonBreakpoint:
            r['bp'] = th.GetStopReasonDataAtIndex(0)
    return r

def triage_sw_run(limit, seconds):
    t = lldb.debugger.GetSelectedTarget()
    th = t.GetProcess().GetSelectedThread()
    was = lldb.debugger.GetAsync()
    lldb.debugger.SetAsync(False)
    try:
        r = triage_sw_loop(t, th, limit, seconds)
    finally:
        lldb.debugger.SetAsync(was)
    triage_sw_say(r)

# triage_sw_at_pc answers, before a run from a hardware watchpoint's stop,
# whether that stop left the pc on a breakpoint's location. The watch stops
# after the writing instruction, so the next line's breakpoint may be at
# the pc already; lldb would step over it unreported. The run stops there
# first, as the breakpoint would have, and as the software watch does.
def triage_sw_at_pc():
    t = lldb.debugger.GetSelectedTarget()
    th = t.GetProcess().GetSelectedThread()
    stops, pc = triage_sw_stops(t), th.GetFrameAtIndex(0).GetPC()
    if pc in stops and triage_sw_takes(th, stops[pc]):
        return triage_sw_say({'kind': 'breakpoint', 'bp': stops[pc].GetID(), 'steps': 0})
    triage_sw_say({'kind': 'none'})
