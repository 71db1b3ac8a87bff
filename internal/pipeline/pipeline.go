package pipeline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/triage-dev/triage/internal/hang"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testreport"
)

// pipeline is what one log streams through: the filter (whose kept lines go
// to the filtered writer), the raw writer, the progress counter and, for a
// test step, a test-output parser reading from a pipe in its own goroutine.
//
// Write is called from one goroutine at a time (runner's output consumer,
// or Analyze's copy loop); the counter is read concurrently.
type pipeline struct {
	raw    io.Writer // nil: no raw copy
	rawErr error     // first raw write failure; later writes are skipped
	filter *logfilter.Filter
	tests  *testParser // nil for build steps
	count  *counter
}

func (p *pipeline) Write(b []byte) (int, error) {
	if p.raw != nil && p.rawErr == nil {
		if _, err := p.raw.Write(b); err != nil {
			p.rawErr = fmt.Errorf("storing the raw log: %w", err)
		}
	}
	p.filter.Write(b) // its error is sticky and read at Close
	if p.tests != nil {
		p.tests.Write(b)
	}
	p.count.Write(b)
	return len(b), nil
}

// testParser parses test output as it streams: bytes written go through a
// queue to testreport.Parse running in a goroutine.
type testParser struct {
	in   *queuePipe
	done chan struct{}

	// Set by the goroutine before done is closed.
	rep     *testreport.Report
	format  string // the format parsed
	err     error
	guessed bool // the format was not recognised; read as xctest text
}

// newTestParser starts parsing in format; "" detects the format from the
// first 64 KiB, as testreport.ParseAuto does, except that output in which
// the fallback reader finds no test is reported as unparsed (finish returns
// no report) rather than as a run of zero tests.
func newTestParser(format string) *testParser {
	in := newQueuePipe()
	t := &testParser{in: in, done: make(chan struct{})}
	go func() {
		defer close(t.done)
		t.format = format
		br := bufio.NewReaderSize(in, sniffSize)
		if format == "" {
			sample, err := br.Peek(sniffSize)
			if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
				t.err = err
			}
			t.format = testreport.DetectFormat(sample)
		}
		if t.format == "" {
			// Test lines after a long build: the xcodebuild/swift reader
			// also knows compiler errors and runner failures. Its report
			// counts only if it found tests (finish).
			t.format, t.guessed = testreport.FormatXCTest, true
		}
		if t.err == nil {
			t.rep, t.err = testreport.Parse(t.format, br)
		}
		// Whatever is left is drained, so that writers never block on a
		// parser that has finished.
		_, _ = io.Copy(io.Discard, br)
	}()
	return t
}

// queuePipe hands what is written to a reader in another goroutine without
// waiting for it to be read, up to queueDepth writes ahead: the test parser
// reads a block while the log filter and the store take it, instead of
// after them (a cached `go test` prints its whole output as the run ends,
// when every millisecond is the caller's wait). Writes after Close are
// dropped.
type queuePipe struct {
	mu     sync.Mutex
	closed bool
	ch     chan []byte
	cur    []byte // the block being read
}

const queueDepth = 8

func newQueuePipe() *queuePipe { return &queuePipe{ch: make(chan []byte, queueDepth)} }

// Write queues a copy of b (the caller reuses its buffer).
func (q *queuePipe) Write(b []byte) {
	if len(b) == 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.ch <- bytes.Clone(b)
	}
}

// Close ends the input: the reader gets io.EOF after what was queued.
func (q *queuePipe) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		close(q.ch)
	}
}

func (q *queuePipe) Read(b []byte) (int, error) {
	for len(q.cur) == 0 {
		blk, ok := <-q.ch
		if !ok {
			return 0, io.EOF
		}
		q.cur = blk
	}
	n := copy(b, q.cur)
	q.cur = q.cur[n:]
	return n, nil
}

// sniffSize is how much output is looked at to recognise a test format.
const sniffSize = 64 << 10

func (t *testParser) Write(b []byte) { t.in.Write(b) }

// finish ends the input and waits for the parser.
func (t *testParser) finish() (*testreport.Report, string, error) {
	t.in.Close() // a second finish closes nothing
	<-t.done
	if t.guessed {
		if t.rep == nil || (t.rep.Totals.Total == 0 && t.rep.ToolSummary == nil) {
			return nil, "", t.err
		}
		t.rep.Notes = append(t.rep.Notes, "test output format not recognised in the first 64 KiB; read as xcodebuild/swift text")
	}
	return t.rep, t.format, t.err
}

// AnalyzeOptions configure Analyze.
type AnalyzeOptions struct {
	// Format is the testreport format of test output in the log; "" detects
	// it. A log with no test output in it is a build log.
	Format string
	// Level is the filter level.
	Level logfilter.Level
	// Filtered receives the filtered log as it streams; nil discards it.
	Filtered io.Writer
	// AllowEmpty makes an empty log a success; by default it is a failure,
	// since it proves nothing.
	AllowEmpty bool
	// Skips says whether skipped tests fail the run.
	Skips SkipPolicy
}

// Analyze reads a finished build or test log, such as `xcodebuild … |` or
// `go test -json ./… |` piped into `triage filter`, through the same
// pipeline a build or test run uses, and concludes. With no exit status to
// go by, the verdict rests on what the log says: a log that shows test
// activity is a test run, any other (`xcodebuild build`, `go build`, `cargo
// build`, `make`) a build.
func Analyze(r io.Reader, o AnalyzeOptions) (*Result, error) {
	out := o.Filtered
	if out == nil {
		out = io.Discard
	}
	p := &pipeline{filter: logfilter.New(o.Level, out), tests: newTestParser(o.Format), count: newCounter()}
	var stacks hang.LogStacks // a hung run's stacks, taken before the kill
	tap := &lineTap{fn: stacks.Line}
	_, copyErr := io.Copy(p, io.TeeReader(r, tap))
	tap.flush()
	ferr := p.filter.Close()
	rep, format, perr := p.tests.finish()
	if copyErr != nil {
		return nil, fmt.Errorf("reading the log: %w", copyErr)
	}
	if ferr != nil {
		return nil, ferr
	}
	res := &Result{Kind: KindBuild, Log: p.filter.Summary()}
	if perr == nil && rep != nil && rep.RanTests() {
		res.Kind, res.Report, res.Format, res.guessed = KindTest, rep, format, p.tests.guessed
		nameFromStacks(rep, stacks.Report())
		if rep.Status == testreport.Crashed {
			// The log is all there is: the crash is reported at the frame
			// its trace shows (a Go panic's), by the rule a test run uses.
			// Where the project is, is not known.
			res.Crash = crashedTest(rep)
			res.Crash.Frame = messageFrame(res.Crash.Message, "")
		}
	}
	res.conclude()
	res.applySkips(o.Skips)
	switch {
	case res.Log.Lines > 0:
	case o.AllowEmpty:
		res.Status, res.Line = Succeeded, "EMPTY LOG: nothing was read (an empty log was allowed)"
	default:
		// An empty log (a CI step whose output went elsewhere) proves nothing.
		res.Status, res.Line = SilentFailure, "EMPTY LOG: nothing was read, so nothing can be said to have succeeded"
	}
	return res, nil
}
