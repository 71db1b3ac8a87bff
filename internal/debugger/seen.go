package debugger

import (
	"context"
	"slices"
	"time"
)

// SeenFrames is how many of a stop's top frames the Manager keeps.
const SeenFrames = 5

// Overview is a session as a reader that must not disturb it sees it (the
// web page): its info, and what the Manager kept from the calls made
// through it, so that nothing is asked of the debugger.
type Overview struct {
	SessionInfo
	// Frames are the top frames of the stopped thread at the last stop:
	// as a call that asked for them got them, or as the Manager fetched
	// them once itself (look); none while they are not known.
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

// seen is what the Manager keeps of one session from the calls through it
// and its own looks; guarded by Manager.mu. It is bounded: SeenFrames
// frames, one count a breakpoint (removed with it).
type seen struct {
	stopAt  time.Time // the stop frames are of
	frames  []Frame
	looked  time.Time // the last stop the Manager fetched frames of itself
	counted time.Time // the last stop counted in hits
	hits    map[int]int
	// threads are the threads of the stop at threadsAt as ListThreads
	// described them; nil when not known, or the target moved since.
	threadsAt time.Time
	threads   *ThreadList
}

// keptThreads is the thread list kept for st's stop, if there is one.
func (v *seen) keptThreads(st State) (ThreadList, bool) {
	if v.threads == nil || st.Status != StatusStopped || st.LastStop == nil || !st.LastStop.At.Equal(v.threadsAt) {
		return ThreadList{}, false
	}
	return *v.threads, true
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

// wants reports a stop whose frames are neither kept nor looked for yet.
func (v *seen) wants(st State) bool {
	stop := st.LastStop
	if st.Status != StatusStopped || stop == nil || stop.At.Equal(v.looked) {
		return false
	}
	return !stop.At.Equal(v.stopAt) || len(v.frames) == 0
}

// keepFrames keeps the top frames of the stop at.
func (v *seen) keepFrames(at time.Time, frames []Frame) {
	v.stopAt, v.frames = at, slices.Clone(frames[:min(len(frames), SeenFrames)])
}

// Overviews describes the sessions the caller may see, oldest first, from
// what the Manager and the backends hold in memory: no debugger command is
// sent from it, so a running or busy session is not disturbed. A stop
// whose frames are not known is looked at once on the side (look, when no
// call runs on the session), and OnChange told when its frames are kept.
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
		later := s.gate.look == nil && s.gate.calls == 0 && s.seen.wants(info.State)
		for _, bp := range bps {
			o.Breakpoints = append(o.Breakpoints, BreakpointHits{Breakpoint: bp, Hits: s.seen.hits[bp.ID]})
		}
		m.mu.Unlock()
		if later {
			m.lookLater(s, false)
		}
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
