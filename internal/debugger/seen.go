package debugger

import (
	"context"
	"slices"
	"time"
)

// SeenFrames is how many of a stop's top frames the Manager keeps.
const SeenFrames = 8

// Overview is a session as a reader that must not disturb it sees it (the
// web page): its info, and what the Manager kept from the calls made
// through it, so that nothing is asked of the debugger.
type Overview struct {
	SessionInfo
	// Frames are the top frames of the stopped thread at the last stop, as
	// the last call that asked for them after that stop got them; none
	// when no call has since the stop.
	Frames      []Frame          `json:"frames,omitempty"`
	Breakpoints []BreakpointHits `json:"breakpoints"`
}

// BreakpointHits is a breakpoint and the stops at it the Manager saw.
type BreakpointHits struct {
	Breakpoint
	// Hits counts the stops at this breakpoint seen through the Manager:
	// known when the debugger names the breakpoint of a stop, or when the
	// stop's top frame was asked for. A hit that did not stop the target
	// (its condition false) is not counted.
	Hits int `json:"hits"`
}

// seen is what the Manager keeps of one session from the calls through it;
// guarded by Manager.mu. It is bounded: SeenFrames frames, one count a
// breakpoint (removed with it).
type seen struct {
	stopAt  time.Time // the stop frames are of
	frames  []Frame
	counted time.Time // the last stop counted in hits
	hits    map[int]int
}

// count adds the stop of st to the hits of its breakpoints, once a stop,
// when it is known which they are.
func (v *seen) count(st State, bps []Breakpoint) {
	stop := st.LastStop
	if stop == nil || stop.Reason != StopBreakpoint || stop.At.Equal(v.counted) {
		return
	}
	ids := stop.BreakpointIDs
	if len(ids) == 0 {
		if !v.stopAt.Equal(stop.At) || len(v.frames) == 0 {
			return // not known yet: the frames may tell later
		}
		ids = breakpointsAt(bps, v.frames[0])
	}
	v.counted = stop.At
	if v.hits == nil {
		v.hits = map[int]int{}
	}
	for _, id := range ids {
		v.hits[id]++
	}
}

// keepFrames keeps the top frames of the stop at.
func (v *seen) keepFrames(at time.Time, frames []Frame) {
	v.stopAt, v.frames = at, slices.Clone(frames[:min(len(frames), SeenFrames)])
}

// Overviews describes the sessions the caller may see, oldest first, from
// what the Manager and the backends hold in memory: no debugger command is
// sent, so a running or busy session is not disturbed.
func (m *Manager) Overviews(ctx context.Context) []Overview {
	infos := m.List(ctx)
	out := make([]Overview, 0, len(infos))
	for _, info := range infos {
		m.mu.Lock()
		s := m.sessions[info.ID]
		m.mu.Unlock()
		if s == nil {
			continue // detached meanwhile
		}
		bps := s.backend.Breakpoints()
		o := Overview{SessionInfo: info, Breakpoints: make([]BreakpointHits, 0, len(bps))}
		m.mu.Lock()
		s.seen.count(info.State, bps)
		if stop := info.State.LastStop; stop != nil && stop.At.Equal(s.seen.stopAt) {
			o.Frames = slices.Clone(s.seen.frames)
		}
		for _, bp := range bps {
			o.Breakpoints = append(o.Breakpoints, BreakpointHits{Breakpoint: bp, Hits: s.seen.hits[bp.ID]})
		}
		m.mu.Unlock()
		out = append(out, o)
	}
	return out
}

// note records what a call through the Manager changed in s: the hits of
// a new stop at a breakpoint, and the count of a breakpoint removed; then
// tells Options.OnChange.
func (m *Manager) note(s *session) {
	st, bps := s.backend.State(), s.backend.Breakpoints()
	m.mu.Lock()
	s.seen.count(st, bps)
	for id := range s.seen.hits {
		if !slices.ContainsFunc(bps, func(b Breakpoint) bool { return b.ID == id }) {
			delete(s.seen.hits, id)
		}
	}
	m.mu.Unlock()
	m.changed()
}

// changed tells Options.OnChange that a session changed.
func (m *Manager) changed() {
	if m.opts.OnChange != nil {
		m.opts.OnChange()
	}
}

// observed is a session's Backend as Manager.Backend hands it out: each
// call that may move the target or its breakpoints is noted, and the top
// frames of a stop are kept when a call asks for them, so that a reader
// learns them without sending the debugger anything.
type observed struct {
	Backend
	m *Manager
	s *session
}

// Unwrap returns the backend a Manager's Backend hands out calls to, for
// what only the backend's own type offers (tests reach a debugger's pid).
func Unwrap(b Backend) Backend {
	if o, ok := b.(*observed); ok {
		return o.Backend
	}
	return b
}

func (o *observed) Continue(ctx context.Context, opts ContinueOptions) (State, error) {
	defer o.m.note(o.s)
	return o.Backend.Continue(ctx, opts)
}

func (o *observed) Step(ctx context.Context, kind StepKind, thread int, wait time.Duration) (State, error) {
	defer o.m.note(o.s)
	return o.Backend.Step(ctx, kind, thread, wait)
}

func (o *observed) Pause(ctx context.Context) (State, error) {
	defer o.m.note(o.s)
	return o.Backend.Pause(ctx)
}

func (o *observed) WaitStop(ctx context.Context, d time.Duration) (State, error) {
	defer o.m.note(o.s)
	return o.Backend.WaitStop(ctx, d)
}

func (o *observed) AddBreakpoint(ctx context.Context, spec BreakpointSpec) (Breakpoint, error) {
	defer o.m.note(o.s)
	return o.Backend.AddBreakpoint(ctx, spec)
}

func (o *observed) RemoveBreakpoint(ctx context.Context, id int) error {
	defer o.m.note(o.s)
	return o.Backend.RemoveBreakpoint(ctx, id)
}

func (o *observed) RawCommand(ctx context.Context, command string) (string, error) {
	defer o.m.note(o.s) // a raw command may resume or stop the target
	return o.Backend.RawCommand(ctx, command)
}

func (o *observed) Evaluate(ctx context.Context, expr string, frame int) (Variable, error) {
	defer o.m.note(o.s) // an expression may call code that stops
	return o.Backend.Evaluate(ctx, expr, frame)
}

// Stack keeps the top frames of the stopped thread's stack (thread 0, or
// the thread of the last stop) when the stop did not change meanwhile.
func (o *observed) Stack(ctx context.Context, thread, maxFrames int) ([]Frame, error) {
	before := o.Backend.State().LastStop
	frames, err := o.Backend.Stack(ctx, thread, maxFrames)
	after := o.Backend.State().LastStop
	if err != nil || len(frames) == 0 || before == nil || after == nil || !before.At.Equal(after.At) ||
		thread != 0 && thread != after.ThreadID {
		return frames, err
	}
	o.m.mu.Lock()
	o.s.seen.keepFrames(after.At, frames)
	o.m.mu.Unlock()
	o.m.note(o.s) // the frames may tell which breakpoint was hit
	return frames, err
}
