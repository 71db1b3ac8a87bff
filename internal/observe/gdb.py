# triage's observe script for gdb: the plan's tracepoints as breakpoints
# whose stop() records and never stops (gdb does not return to its command
# loop per hit, which is why this is as fast as dprintf). Reads the plan
# from the JSON file named by $TRIAGE_OBSERVE_PLAN; writes the events
# (JSON lines) and the end (one JSON object) to the files the plan names.
import json
import os

import gdb

plan = json.load(open(os.environ["TRIAGE_OBSERVE_PLAN"]))
events = open(plan["events"], "w", buffering=1)  # by line: a run cut short keeps its hits
end = {}
fatal = set(plan["fatal"])


def finish():
    events.close()
    with open(plan["end"], "w") as f:
        json.dump(end, f)


class Tracepoint(gdb.Breakpoint):
    def __init__(self, idx, tp):
        gdb.decode_line(tp["location"])  # a Python breakpoint would be left pending
        super().__init__(tp["location"])
        self.idx, self.exprs, self.limit, self.n = idx, tp["exprs"], tp["limit"], 0
        self.cond = tp.get("condition") or None
        # Each expression is parsed in the location's scope as a condition
        # would be, so a bad one fails here, before the run. gdb calls
        # stop() whatever the condition, so stop() evaluates it.
        for e in self.exprs + [self.cond]:
            if e:
                self.condition = e
        self.condition = None

    def stop(self):
        if self.n >= self.limit:
            return False
        if self.cond:
            try:
                if not bool(gdb.parse_and_eval(self.cond)):
                    return False
            except gdb.error as err:
                end["plan_error"] = {"tp": self.idx, "message": "condition %s: %s" % (self.cond, err)}
                return True
        self.n += 1
        values = {}
        for e in self.exprs:
            try:
                values[e] = str(gdb.parse_and_eval(e))
            except gdb.error as err:
                values[e] = "<error: %s>" % err
        events.write(json.dumps({"tp": self.idx, "hit": self.n, "values": values}) + "\n")
        if self.n >= self.limit:
            gdb.post_event(self.retire)
        return False

    def retire(self):
        if self.is_valid():
            self.enabled = False


def on_stop(ev):
    if isinstance(ev, gdb.SignalEvent):
        end["stop_signal"] = ev.stop_signal


def on_exit(ev):
    if hasattr(ev, "exit_code"):
        end["exit_code"] = ev.exit_code


def crash_site(sig):
    out = lambda c: gdb.execute(c, to_string=True)
    crash = {"signal": sig, "bt": out("bt")}
    crash["site"] = [out(c) for c in plan["site"]]
    if sig in ("SIGSEGV", "SIGBUS"):
        try:
            crash["fault"] = str(gdb.parse_and_eval("$_siginfo._sifields._sigfault.si_addr")).split()[-1]
        except gdb.error:
            pass
    end["crash"] = crash


def observe():
    for i, tp in enumerate(plan["tracepoints"]):
        try:
            Tracepoint(i, tp)
        except (gdb.error, RuntimeError) as err:
            end["plan_error"] = {"tp": i, "message": str(err)}
            return
    gdb.events.stop.connect(on_stop)
    gdb.events.exited.connect(on_exit)
    gdb.execute("run")
    while gdb.selected_inferior().pid != 0:
        sig = end.pop("stop_signal", None)
        if sig is None:  # a condition failed (plan_error), or an unexpected stop
            if "plan_error" not in end:
                end["error"] = "the program stopped with no signal"
            gdb.execute("kill")
            return
        if sig in fatal:
            crash_site(sig)
        end["signal"] = sig
        gdb.execute("continue")


try:
    observe()
except gdb.error as err:
    end["error"] = str(err)
finally:
    finish()
