package testreport

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/crashsite"
)

// KindDataRace is the Kind of a case that failed because a data race was
// detected while it ran (Go's race detector, ThreadSanitizer).
const KindDataRace = "data race"

// raceReport reads a data race report line by line, in either of its two
// shapes. Go's race detector (go test -race):
//
//	WARNING: DATA RACE
//	Read at 0x0000009f0d08 by goroutine 19:
//	  golang.org/x/sync/errgroup.(*Group).Go.func1()
//	      /src/errgroup/errgroup.go:78 +0x44
//
//	Previous write at 0x0000009f0d08 by goroutine 20:
//	  …
//	Goroutine 19 (running) created at:
//	  …
//	==================
//
// and ThreadSanitizer's (gcc or clang -fsanitize=thread):
//
//	WARNING: ThreadSanitizer: data race (pid=31207)
//	  Read of size 4 at 0x564c8984d05c by thread T2:
//	    #0 bump /src/race.c:8 (race+0x11dc)
//	    #1 worker /src/race.c:14 (race+0x1224)
//
//	  Previous write of size 4 at 0x564c8984d05c by thread T1:
//	  …
//	SUMMARY: ThreadSanitizer: data race /src/race.c:8 in bump
//
// The race is located at the racy access: the first frame in the project's
// own code (the crashsite rule) of the first access stack that has one
// ("Read at …", "Previous write …"); the stacks of where the goroutines or
// threads were created are not the race's site.
type raceReport struct {
	started  bool
	inStack  bool
	goFunc   string            // a Go frame's function line, its file line next
	frames   []crashsite.Frame // the access stack being read
	site     *crashsite.Frame
	fallback *crashsite.Frame // the first stack's pick, when no stack has a project frame
}

var (
	raceGoFunc = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+(\S+)\(.*\)$`) })
	raceGoFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+(\S+\.go):(\d+)`) })
)

// isRaceStart recognises a race report's first line.
func isRaceStart(line string) bool {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "==") {
		if i := strings.Index(t[2:], "=="); i >= 0 {
			t = t[2+i+2:] // "==4242==WARNING: ThreadSanitizer: …"
		}
	}
	return t == "WARNING: DATA RACE" || strings.HasPrefix(t, "WARNING: ThreadSanitizer: data race")
}

// isAccessHeader recognises the line above an access stack: Go's "Read at
// 0x… by goroutine 19:", "Previous write at …", TSan's "Read of size 4 at
// 0x… by thread T2:", "Atomic write of size 4 …", "Previous read …".
func isAccessHeader(t string) bool {
	if !strings.HasSuffix(t, ":") || !strings.Contains(t, " at 0x") {
		return false
	}
	t = strings.TrimPrefix(t, "Previous ")
	t = strings.TrimPrefix(strings.TrimPrefix(t, "Atomic "), "atomic ")
	for _, p := range []string{"Read ", "read ", "Write ", "write "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// feed reads one line; it reports true once the race's site is known.
func (r *raceReport) feed(line string) bool {
	if r.site != nil {
		return true
	}
	if !r.started {
		r.started = isRaceStart(line)
		return false
	}
	t := strings.TrimSpace(line)
	switch {
	case r.inStack && t == "":
		r.endStack()
	case r.inStack:
		r.frame(line)
	case isAccessHeader(t):
		r.inStack, r.frames, r.goFunc = true, nil, ""
	case t == "==================" || strings.HasPrefix(t, "SUMMARY: "):
		r.finish() // the report ended
	}
	return r.site != nil
}

func (r *raceReport) frame(line string) {
	if f, ok := crashsite.SanitizerFrame(line); ok {
		if f.HasSource() {
			r.frames = append(r.frames, crashsite.Frame{Function: f.Function, File: f.File, Line: f.Line})
		}
		return
	}
	if m := raceGoFunc().FindStringSubmatch(line); m != nil {
		r.goFunc = m[1]
		return
	}
	if m := raceGoFile().FindStringSubmatch(line); m != nil && r.goFunc != "" {
		n, _ := strconv.Atoi(m[2])
		r.frames = append(r.frames, crashsite.Frame{Function: r.goFunc, File: m[1], Line: n})
		r.goFunc = ""
	}
}

func (r *raceReport) endStack() {
	r.inStack = false
	i := crashsite.Pick(r.frames, "")
	if i < 0 {
		return
	}
	f := r.frames[i]
	switch {
	case f.HasSource() && crashsite.OriginOf(f, "") == crashsite.Project:
		r.site = &f
	case r.fallback == nil:
		r.fallback = &f
	}
}

// finish ends a report (or the text it was in): the first stack's pick
// stands when no stack had a frame in the project's code.
func (r *raceReport) finish() {
	if r.inStack {
		r.endStack()
	}
	r.started = false
	if r.site == nil {
		r.site = r.fallback
	}
}

// raceIn finds a data race report in text (a test's output) and where it
// raced; ok is false when text holds none.
func raceIn(text string) (site crashsite.Frame, ok bool) {
	if !strings.Contains(text, "DATA RACE") && !strings.Contains(text, "ThreadSanitizer: data race") {
		return crashsite.Frame{}, false
	}
	r := &raceReport{}
	seen := false
	for _, l := range strings.Split(text, "\n") {
		seen = seen || isRaceStart(l)
		if r.feed(l) {
			break
		}
	}
	if r.site == nil {
		r.finish()
	}
	if !seen {
		return crashsite.Frame{}, false
	}
	if r.site == nil {
		return crashsite.Frame{}, true
	}
	return *r.site, true
}
