package realworld

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Outcome is what the harness saw of one cell.
type Outcome struct {
	Cell     Cell
	Truth    string   // the cell's truth, in words
	Test     string   // the verdict line of triage call test
	Filter   string   // the verdict line of triage filter
	Problems []string // every way triage's answers differ from the truth
	Took     time.Duration
}

// classOf reads a verdict line's class: a HUNG run timed out early (the stall watch).
func classOf(line string) Class {
	for _, c := range []struct {
		prefix string
		class  Class
	}{
		{"CRASHED", Crashed}, {"TIMED OUT", TimedOut}, {"HUNG", TimedOut}, {"BUILD FAILED", BuildFailed},
		{"TESTS PASSED", Passed}, {"BUILD SUCCEEDED", Passed}, {"SUCCEEDED", Passed}, {"TEST COMMAND SUCCEEDED", Passed},
		{"TESTS FAILED", Failed}, {"FAILED", Failed}, {"NO TESTS RAN", Failed}, {"TESTS DID NOT FINISH", Failed},
	} {
		if strings.HasPrefix(line, c.prefix) {
			return c.class
		}
	}
	return Class("unrecognised")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// evidence is the part of an answer where triage states its findings:
// everything but the copied log lines, so that a frame or test name seen
// only in the raw output does not count as found.
func evidence(kind, text string) string {
	switch kind {
	case "filter": // verdict, kept lines, "---", findings
		if i := strings.Index(text, "\n---\n"); i >= 0 {
			return firstLine(text) + "\n" + text[i+5:]
		}
		return firstLine(text)
	default: // findings, then "log (filtered …):" and the kept lines
		if i := strings.Index(text, "\nlog ("); i >= 0 {
			return text[:i]
		}
		return text
	}
}

// judgeAnswer compares one answer (test, build or filter) with the truth.
func judgeAnswer(kind, text string, want Class, c Cell, loc faultLoc) []string {
	var probs []string
	line := firstLine(text)
	if got := classOf(line); got != want {
		probs = append(probs, fmt.Sprintf("%s: %s, want %s (%q)", kind, got, want, clip(line, 120)))
	}
	ev := evidence(kind, text)
	if kind == "filter" && want == BuildFailed {
		// A kept compiler line is its own location.
		ev = text
	}
	if c.Test != "" && want != BuildFailed && !strings.Contains(ev, c.Test) {
		probs = append(probs, fmt.Sprintf("%s: does not name test %s", kind, c.Test))
	}
	if c.Frame {
		at := filepath.Base(loc.File) + ":" + fmt.Sprint(loc.Line)
		if !strings.Contains(ev, at) {
			probs = append(probs, fmt.Sprintf("%s: does not point at %s", kind, at))
		}
	}
	return probs
}

// logLine is what a raw log line says: a go test -json event's output, or
// the line itself.
func logLine(raw string) string {
	if strings.HasPrefix(raw, "{") {
		var ev struct{ Output *string }
		if json.Unmarshal([]byte(raw), &ev) == nil && ev.Output != nil {
			return strings.TrimRight(*ev.Output, "\n")
		}
	}
	return raw
}

var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// judgeKept checks that every raw-log line matching one of the cell's Keep
// expressions is in triage filter's output, and that the raw log has one.
func judgeKept(c Cell, loc faultLoc, raw []string, filtered string) []string {
	var probs []string
	for _, expr := range c.Keep {
		re := regexp.MustCompile(strings.ReplaceAll(expr, "{line}", fmt.Sprint(loc.Line)))
		seen := false
		for _, r := range raw {
			// The filter prints lines without their colour escapes.
			l := strings.TrimSpace(ansiEscape.ReplaceAllString(logLine(r), ""))
			if !re.MatchString(l) {
				continue
			}
			seen = true
			if !strings.Contains(filtered, l) {
				probs = append(probs, fmt.Sprintf("filter: dropped %q", clip(l, 100)))
				break
			}
		}
		if !seen {
			probs = append(probs, fmt.Sprintf("raw log: no line matches %q (the fault did not show as expected)", expr))
		}
	}
	return probs
}

var dumpHint = regexp.MustCompile(`dump_open (\{.*)`)

// judgeCore checks that the test answer names a core that exists and a
// dump_open hint whose arguments open it and show the fault's frame.
func judgeCore(t *testing.T, store, text string, loc faultLoc) []string {
	m := dumpHint.FindStringSubmatch(text)
	if m == nil {
		return []string{"test: no dump_open hint (core not found)"}
	}
	var args map[string]any
	if err := json.NewDecoder(strings.NewReader(m[1])).Decode(&args); err != nil {
		return []string{fmt.Sprintf("test: dump_open hint is not JSON: %v", err)}
	}
	core, _ := args["core"].(string)
	if core == "" || !filepath.IsAbs(core) {
		return []string{fmt.Sprintf("test: dump_open hint has no absolute core path (%q)", core)}
	}
	if _, err := os.Stat(core); err != nil {
		return []string{fmt.Sprintf("test: hinted core %s does not exist", core)}
	}
	// dump_open and dump_report in one session, as an agent calls them:
	// a dump session lives in the server, so two `triage call` processes
	// cannot share one.
	texts, err := callSession(store, []toolCall{{"dump_open", args}, {"dump_report", map[string]any{}}})
	if err != nil {
		return []string{fmt.Sprintf("dump_open %s, dump_report: %v", clip(m[1], 200), err)}
	}
	at := filepath.Base(loc.File) + ":" + fmt.Sprint(loc.Line)
	if !strings.Contains(texts[0], at) && !strings.Contains(texts[1], at) {
		return []string{fmt.Sprintf("dump_open/dump_report: no frame at %s (report: %s)", at, clip(firstLine(texts[1]), 120))}
	}
	return nil
}

// runCell copies the project, injects the fault and judges triage's
// answers three ways.
func runCell(t *testing.T, c Cell) Outcome {
	p, ok := projects[c.Project]
	if !ok {
		t.Fatalf("unknown project %q", c.Project)
	}
	for _, tool := range p.Tools {
		if _, err := exec.LookPath(tool); err != nil {
			missing(t, tool+" not found: run scripts/install-deps.sh")
		}
	}
	src := p.source(t)
	start := time.Now()
	dir := copyProject(t, src)
	loc := applyEdits(t, dir, c.Edits)
	prepare(t, p, dir, cellEnv(c))
	store := filepath.Join(t.TempDir(), "store")

	args := map[string]any{"project_dir": dir, "toolchain": p.Toolchain}
	if len(p.Targets) > 0 {
		args["targets"] = p.Targets
	}
	if len(p.ConfigureArgs) > 0 {
		args["configure_args"] = p.ConfigureArgs
	}
	for k, v := range c.Options {
		args[k] = v
	}
	if len(p.Env) > 0 {
		env := map[string]any{}
		for k, v := range cellEnv(c) {
			env[k] = v
		}
		args["env"] = env
	}
	o := Outcome{Cell: c, Truth: truth(c, loc)}
	test := callTool(t, store, "test", args)
	o.Problems = append(o.Problems, leftRunning("test")...)
	o.Test = firstLine(test.Text)
	o.Problems = append(o.Problems, judgeAnswer("test", test.Text, c.Class, c, loc)...)
	if want := c.Class != Passed; want != (test.Exit != 0) {
		o.Problems = append(o.Problems, fmt.Sprintf("test: exit %d", test.Exit))
	}

	var out struct {
		OutputID string `json:"output_id"`
	}
	if err := json.Unmarshal(test.Output, &out); err != nil || out.OutputID == "" {
		o.Problems = append(o.Problems, "test: no output_id for the raw log")
	} else {
		raw := rawLog(t, store, out.OutputID)
		filtered, code := filterLog(t, p.Toolchain, raw)
		keepLogs(t, c, raw, test.Text, filtered)
		o.Filter = firstLine(filtered)
		// A log cut short by triage's timeout reads, to a filter, as a run
		// that ended with a test unfinished; a cell whose runner's own
		// limit ended the test (its log says so) sets FilterClass.
		want := c.FilterClass
		if want == "" {
			want = c.Class
			if want == TimedOut {
				want = Failed
			}
		}
		// A filter can name only what the log shows.
		fc := c
		fc.Test = shownIn(raw, c.Test)
		fc.Frame = c.Frame && shownIn(raw, fmt.Sprintf("%s:%d", filepath.Base(loc.File), loc.Line)) != ""
		if want == Passed {
			fc.Test, fc.Frame = "", false // a log that reads as a pass names no culprit
		}
		o.Problems = append(o.Problems, judgeAnswer("filter", filtered, want, fc, loc)...)
		if (want != Passed) != (code != 0) {
			o.Problems = append(o.Problems, fmt.Sprintf("filter: exit %d", code))
		}
		o.Problems = append(o.Problems, judgeKept(c, loc, raw, filtered)...)
	}
	if c.Core {
		o.Problems = append(o.Problems, judgeCore(t, store, test.Text, loc)...)
	}
	if c.Class == Passed {
		o.Problems = append(o.Problems, judgePristine(t, store, args, test)...)
	}
	if c.Build {
		delete(args, "timeout_s")
		build := callTool(t, store, "build", args)
		o.Problems = append(o.Problems, judgeAnswer("build", build.Text, BuildFailed, c, loc)...)
	}
	o.Took = time.Since(start)
	return o
}

// shownIn returns s when a line of the raw log mentions it, else "".
func shownIn(raw []string, s string) string {
	if s == "" {
		return ""
	}
	for _, r := range raw {
		if strings.Contains(logLine(r), s) {
			return s
		}
	}
	return ""
}

// truth says in words what the cell truly is.
func truth(c Cell, loc faultLoc) string {
	s := string(c.Class)
	if c.Test != "" {
		s += " in " + c.Test
	}
	if c.Frame {
		s += " at " + filepath.Base(loc.File) + ":" + fmt.Sprint(loc.Line)
	}
	if c.Core {
		s += ", core"
	}
	return s
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
