package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A long call shows one live status line on a terminal's stderr: the
// time since the call started and the tool's latest progress message (a
// build or test names its step and the tests passed and failed so far).
// It is redrawn in place every second, cut to the terminal's width so it
// never wraps (a wrapped line could not be erased), shown only once the
// call has run for statusDelay, and erased when the call ends: what
// remains on the terminal is the answer alone.
//
// A call whose progress counts its output (run, build, test: lines so
// far) says when that count has not moved for quietAfter — "no output
// for 25s" — so that a person watching a silent program knows it is
// silent, not slow to show.
const (
	statusDelay    = 500 * time.Millisecond
	statusInterval = time.Second
	quietAfter     = 10 * time.Second
)

// countsOutput are the tools whose progress is their output's lines (a
// program that prints nothing sends 0); another's counts steps or nothing.
var countsOutput = map[string]bool{"run": true, "build": true, "test": true,
	"sim_build_run": true, "device_build_run": true, "macos_build_run": true}

// progressPrinter draws the status line.
type progressPrinter struct {
	mu    sync.Mutex
	w     io.Writer
	tool  string
	width func() int // the terminal's columns
	start time.Time
	now   func() time.Time
	msg   string
	// counts: the progress is lines of output (countsOutput); lines is
	// the most seen, at lastOut.
	counts  bool
	lines   float64
	lastOut time.Time
	shown   bool // a line is on the terminal
	ended   bool
	stop    chan struct{}
}

// newProgressPrinter returns the status line of a call of tool when w is
// a terminal that takes escape sequences, else nil: nothing is drawn into
// a pipe, a file or a dumb terminal.
func newProgressPrinter(w io.Writer, tool string) *progressPrinter {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	p := newStatusLine(w, tool, func() int { return terminalWidth(f) }, time.Now)
	go p.tick()
	return p
}

// newStatusLine is the printer over any writer, clock and width (tests
// give it a fake terminal).
func newStatusLine(w io.Writer, tool string, width func() int, now func() time.Time) *progressPrinter {
	start := now()
	return &progressPrinter{w: w, tool: tool, width: width, now: now, start: start, lastOut: start,
		counts: countsOutput[tool], stop: make(chan struct{})}
}

// tick redraws the line every interval, so the elapsed time moves while
// the tool sends nothing, until done.
func (p *progressPrinter) tick() {
	t := time.NewTicker(statusInterval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
		}
	}
}

// show takes a progress notification's message as the current step.
func (p *progressPrinter) show(n *mcp.ProgressNotificationParams) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.msg = strings.Join(strings.Fields(n.Message), " ") // one line
	if n.Progress > p.lines {
		// Only a larger count is output: a rerun's note sends 0.
		p.lines, p.lastOut = n.Progress, p.now()
	}
	p.draw()
}

// draw writes the line over the previous one; mu is held.
func (p *progressPrinter) draw() {
	elapsed := p.now().Sub(p.start)
	if p.ended || elapsed < statusDelay {
		return
	}
	line := fmt.Sprintf("triage %s · %s", p.tool, elapsed.Round(time.Second))
	if quiet := p.now().Sub(p.lastOut); p.counts && quiet > quietAfter {
		line += fmt.Sprintf(" · no output for %s", quiet.Round(time.Second))
	}
	if p.msg != "" {
		line += " · " + p.msg
	}
	fmt.Fprintf(p.w, "\r\033[K%s", clip(line, p.width()-1))
	p.shown = true
}

// done erases the line and stops the redrawing; nothing is drawn after it.
func (p *progressPrinter) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.ended = true
	close(p.stop)
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// clip cuts s to at most n runes, marking the cut with an ellipsis.
func clip(s string, n int) string {
	if n < 1 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
