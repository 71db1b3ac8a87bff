package debugger

import (
	"context"
	"regexp"
	"strconv"
	"sync"

	"github.com/triage-dev/triage/internal/crashsite"
)

// SiteFrames is how many frames of a crashed thread CrashSite looks
// through: an abort or assertion path puts the program's own frame a few
// below the top.
const SiteFrames = 16

// faultRE reads the fault address lldb puts in a signal stop's description:
// "signal SIGSEGV: invalid address (fault address: 0x0)" (lldb 16),
// "... address not mapped to object (fault address=0x0)" (lldb 22).
var faultRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`fault address[:=] ?(0x[0-9a-fA-F]+)`) })

// CrashSite is the crash site of a session stopped by a crash: the frame
// crashsite's rule picks among frames (top first), the source around it
// (a relative file looked for under dirs), its arguments and locals from
// the backend, and for a memory fault the address the stop's description
// names; then the frames above in the program's code that called toward
// it (crashsite's AddCallers). Nil when the stop is no crash, or there is
// nothing to show.
func CrashSite(ctx context.Context, b Backend, stop *Stop, frames []Frame, dirs ...string) *crashsite.Site {
	if !stop.Crashed() || len(frames) == 0 {
		return nil
	}
	sf := make([]crashsite.Frame, len(frames))
	for i, f := range frames {
		sf[i] = siteFrame(f)
	}
	i := max(crashsite.Pick(sf, ""), 0)
	f := frames[i]
	s := &crashsite.Site{Index: f.Index, Function: f.Function, File: f.File, Line: f.Line}
	s.Path, s.Source = crashsite.ReadSource(f.File, f.Line, dirs...)
	s.SetVars(frameVars(ctx, b, f.ID))
	if m := faultRE().FindStringSubmatch(stop.Description); m != nil && (stop.Signal == "SIGSEGV" || stop.Signal == "SIGBUS") {
		if addr, err := strconv.ParseUint(m[1][2:], 16, 64); err == nil {
			s.MarkFault(addr)
		}
	}
	s.AddCallers(above(ctx, b, frames[i+1:]), "", dirs...)
	if s.Source == nil && len(s.Args)+len(s.Locals) == 0 {
		return nil
	}
	return s
}

// frameVars are a frame's arguments and locals. Children are not shown:
// one level is the least the backends fetch.
func frameVars(ctx context.Context, b Backend, frame int) (args, locals []crashsite.Var) {
	a, _ := b.Variables(ctx, VariablesRequest{Frame: frame, Scope: "arguments", Depth: 1})
	l, _ := b.Variables(ctx, VariablesRequest{Frame: frame, Scope: "locals", Depth: 1})
	return siteVars(a), siteVars(l)
}

// above are the frames above the site for its callers: a caller's
// variables are asked of the backend only when it is shown (at most
// crashsite.MaxCallers).
func above(ctx context.Context, b Backend, frames []Frame) []crashsite.Above {
	out := make([]crashsite.Above, len(frames))
	for i, f := range frames {
		out[i] = crashsite.Above{Frame: crashsite.Frame{Function: f.Function, File: f.File, Line: f.Line}, Index: f.Index,
			Vars: func() ([]crashsite.Var, []crashsite.Var) { return frameVars(ctx, b, f.ID) }}
	}
	return out
}

func siteVars(vs []Variable) []crashsite.Var {
	out := make([]crashsite.Var, len(vs))
	for i, v := range vs {
		out[i] = crashsite.Var{Name: v.Name, Value: v.Value}
	}
	return out
}
