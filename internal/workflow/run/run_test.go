package run_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/workflow/run"
)

func TestRunSegfault(t *testing.T) {
	c := mcptest.Connect(t, nil)
	dir := t.TempDir()
	r := c.Call("run", map[string]any{"program": crashers.Build(t, "segv"), "cwd": dir})
	if r.IsError || r.Outcome != "failed" {
		t.Fatalf("isError %v outcome %q:\n%s", r.IsError, r.Outcome, r.Text)
	}
	if !strings.HasPrefix(r.FirstLine(), "CRASHED (SIGSEGV) in crash_here at segv.c:5") {
		t.Errorf("verdict line = %q", r.FirstLine())
	}
	var out run.RunOutput
	r.Decode(t, &out)
	// The core triage caused is kept in its state directory, not in dir.
	if out.Core == "" || strings.HasPrefix(out.Core, dir) || len(out.Backtrace) == 0 || out.Backtrace[0].Function != "crash_here" {
		t.Fatalf("core %q backtrace %+v", out.Core, out.Backtrace)
	}
	if _, err := os.Stat(filepath.Join(dir, "core")); err == nil {
		t.Errorf("the core was left in %s", dir)
	}
	if out.Verdict.Status != "crash" || out.OutputID == "" {
		t.Errorf("structured = %+v", out)
	}
	if !strings.Contains(r.Text, `dump_open {"core":"`+out.Core) {
		t.Errorf("no dump_open hint naming the core:\n%s", r.Text)
	}
	// The core is what crash_report_list finds, and crash_report_show reads it.
	list := c.Call("crash_report_list", map[string]any{"project_dir": dir})
	if !strings.Contains(list.Text, out.Core) {
		t.Errorf("crash_report_list does not list %s:\n%s", out.Core, list.Text)
	}
	show := c.Call("crash_report_show", map[string]any{"path": out.Core})
	if show.IsError || !strings.Contains(show.Text, "crash_here") {
		t.Errorf("crash_report_show:\n%s", show.Text)
	}
}

func TestRunVerdicts(t *testing.T) {
	c := mcptest.Connect(t, nil)
	tests := []struct {
		prog    string
		args    []string
		prefix  string
		outcome string
	}{
		{"exitwith", []string{"0", "all good"}, "SUCCEEDED", "ok"},
		{"exitwith", []string{"3", "error: bad config"}, "FAILED (exit 3)", "failed"},
		{"exit0panic", nil, "CRASHED", "failed"},
		{"buildkill", nil, "CRASHED (SIGKILL)", "failed"},
		{"abort", nil, "CRASHED (SIGABRT)", "failed"},
		{"gopanic", nil, "CRASHED (Go panic", "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.prog, func(t *testing.T) {
			r := c.Call("run", map[string]any{"program": crashers.Build(t, tt.prog), "args": tt.args, "cwd": t.TempDir()})
			if !strings.HasPrefix(r.FirstLine(), tt.prefix) || r.Outcome != tt.outcome {
				t.Errorf("verdict %q outcome %q, want prefix %q outcome %q\n%s", r.FirstLine(), r.Outcome, tt.prefix, tt.outcome, r.Text)
			}
		})
	}
}

func TestRunTimeoutKillsGroup(t *testing.T) {
	c := mcptest.Connect(t, nil)
	r := c.Call("run", map[string]any{"program": crashers.Build(t, "sigtermfork"), "args": []string{"hang"}, "timeout_s": 0.5})
	if !strings.HasPrefix(r.FirstLine(), "TIMED OUT") {
		t.Fatalf("verdict = %q\n%s", r.FirstLine(), r.Text)
	}
	var out run.RunOutput
	r.Decode(t, &out)
	if !out.TimedOut || testutil.ProcessAlive(out.Pid) {
		t.Errorf("timed_out %v, leader alive %v", out.TimedOut, testutil.ProcessAlive(out.Pid))
	}
}

func TestRunBadInput(t *testing.T) {
	c := mcptest.Connect(t, nil)
	notExec := filepath.Join(t.TempDir(), "script")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "program"},
		{map[string]any{"program": "/no/such/program"}, "/no/such/program"},
		{map[string]any{"program": "no-such-program-anywhere"}, "PATH"},
		{map[string]any{"program": t.TempDir()}, "directory"},
		{map[string]any{"program": notExec}, "executable"},
		{map[string]any{"program": "true", "cwd": "/no/such/dir"}, "/no/such/dir"},
		{map[string]any{"program": "true", "env": map[string]any{"A=B": "x"}}, "A=B"},
		{map[string]any{"program": "true", "timeout_s": 1e12}, "timeout_s"},
		{map[string]any{"program": "true", "timeout_s": -1}, "timeout_s"},
	}
	for _, tt := range tests {
		r := c.Call("run", tt.args)
		if !r.IsError || (r.Outcome != "usage_error" && r.Outcome != "") || !strings.Contains(r.Text, tt.want) {
			t.Errorf("run %v: isError %v outcome %q text %q, want %q", tt.args, r.IsError, r.Outcome, r.Text, tt.want)
		}
	}
}

func TestRunUsesSessionDefaults(t *testing.T) {
	c := mcptest.Connect(t, nil)
	dir := t.TempDir()
	c.Call("session_set_defaults", map[string]any{"project_dir": dir, "env": map[string]any{"GREETING": "from-defaults"}})
	r := c.Call("run", map[string]any{"program": "sh", "args": []string{"-c", "pwd; echo $GREETING $EXTRA"}, "env": map[string]any{"EXTRA": "explicit"}})
	if !strings.Contains(r.Text, dir) || !strings.Contains(r.Text, "from-defaults explicit") {
		t.Errorf("defaults not applied:\n%s", r.Text)
	}
	other := t.TempDir()
	r = c.Call("run", map[string]any{"program": "pwd", "cwd": other})
	if !strings.Contains(r.Text, other) {
		t.Errorf("explicit cwd lost:\n%s", r.Text)
	}
}

func TestBackgroundProcess(t *testing.T) {
	c := mcptest.Connect(t, nil)
	start := c.Call("process_start", map[string]any{"program": crashers.Build(t, "sleeper"), "args": []string{"600"}})
	if start.IsError {
		t.Fatal(start.Text)
	}
	id, _ := start.Out["id"].(string)
	pid := int(start.Out["pid"].(float64))
	out := c.Call("process_output", map[string]any{"id": id, "wait_s": 30}).Out
	if lines, _ := out["lines"].([]any); len(lines) == 0 || lines[0] != "ready" {
		t.Fatalf("process_output = %v", out)
	}
	if list := c.Call("process_list", nil); !strings.Contains(list.Text, id) || !strings.Contains(list.Text, "1 running") {
		t.Errorf("process_list:\n%s", list.Text)
	}
	stop := c.Call("process_stop", map[string]any{"id": id, "grace_s": 1})
	if !strings.HasPrefix(stop.FirstLine(), "INTERRUPTED") || testutil.ProcessAlive(pid) {
		t.Errorf("after stop (alive %v):\n%s", testutil.ProcessAlive(pid), stop.Text)
	}
	if r := c.Call("process_output", map[string]any{"id": "p99"}); !r.IsError {
		t.Errorf("unknown process id accepted")
	}
}

func TestOutputTools(t *testing.T) {
	c := mcptest.Connect(t, nil)
	r := c.Call("run", map[string]any{"program": crashers.Build(t, "bigoutput"), "args": []string{"2000000"}})
	id, _ := r.Out["output_id"].(string)
	if total := int(r.Out["total_lines"].(float64)); total != 20000 || r.Out["truncated"] != true {
		t.Fatalf("run of 20000 lines: total %v truncated %v", r.Out["total_lines"], r.Out["truncated"])
	}
	if len(r.Text) > 9000 {
		t.Errorf("response text is %d bytes, over the budget", len(r.Text))
	}
	g := c.Call("output_get", map[string]any{"output_id": id, "offset": 100, "limit": 3})
	if lines := g.Out["lines"].([]any); len(lines) != 3 || !strings.Contains(g.Text, `"offset":103`) {
		t.Errorf("output_get:\n%s", g.Text)
	}
	s := c.Call("output_search", map[string]any{"output_id": id, "pattern": "^[a-z]+$", "max_matches": 1})
	if s.IsError || s.Out["total"].(float64) != 20000 || s.Out["truncated"] != true {
		t.Errorf("output_search:\n%s", s.Text)
	}
	for _, bad := range []map[string]any{
		{"output_id": "o-nope"},
		{"output_id": id, "offset": 999999},
	} {
		if r := c.Call("output_get", bad); !r.IsError {
			t.Errorf("output_get %v accepted", bad)
		}
	}
	if r := c.Call("output_search", map[string]any{"output_id": id, "pattern": "a("}); !r.IsError || !strings.Contains(r.Text, "does not compile") {
		t.Errorf("bad regex: %s", r.Text)
	}
	if l := c.Call("output_list", nil); !strings.Contains(l.Text, id) {
		t.Errorf("output_list:\n%s", l.Text)
	}
}

func TestCrashReportShowBadInput(t *testing.T) {
	c := mcptest.Connect(t, nil)
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("just text\n"), 0o644)
	empty := filepath.Join(dir, "empty.ips")
	os.WriteFile(empty, nil, 0o644)
	truncated := filepath.Join(dir, "cut.ips")
	os.WriteFile(truncated, []byte(`{"app_name":"App","bug_type":"309"}`+"\n"+`{"pid":1,"exception":{"type":"EXC_`), 0o644)
	tests := []struct{ path, want string }{
		{"", "path is required"},
		{filepath.Join(dir, "missing"), "no such file"},
		{dir, "directory"},
		{text, "not a core dump or crash report"},
		{empty, "empty"},
		{truncated, "truncated"},
		{crashers.Build(t, "segv"), "executable"},
	}
	for _, tt := range tests {
		r := c.Call("crash_report_show", map[string]any{"path": tt.path})
		if !r.IsError || !strings.Contains(strings.ToLower(r.Text), tt.want) {
			t.Errorf("crash_report_show %q: isError %v %q, want %q", tt.path, r.IsError, r.Text, tt.want)
		}
	}
}

func TestCrashReportShowFixtures(t *testing.T) {
	dir := "../../../../shared/fixtures/crash-reports"
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("fixtures not present (%v): run with ../shared beside the repository", err)
	}
	c := mcptest.Connect(t, nil)
	for _, e := range entries {
		r := c.Call("crash_report_show", map[string]any{"path": filepath.Join(dir, e.Name())})
		if r.IsError || !strings.HasPrefix(r.Text, "CRASH REPORT") {
			t.Errorf("%s: %.300s", e.Name(), r.Text)
		}
	}
}

// TestAnswerKeptWithTheOutput: the structured answer of a run and of a
// test call is what the store keeps with the output, for the web page.
func TestAnswerKeptWithTheOutput(t *testing.T) {
	needTool(t, "go", "golang-go")
	c := mcptest.Connect(t, nil)
	st, err := c.Svc.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	crash := c.Call("run", map[string]any{"program": crashers.Build(t, "segv"), "cwd": t.TempDir()})
	tests := c.Call("test", map[string]any{"project_dir": nativeprojects.Write(t, goModule)})
	for _, r := range []mcptest.Result{crash, tests} {
		id, _ := r.Out["output_id"].(string)
		raw, err := st.Result(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		var kept map[string]any
		if err := json.Unmarshal(raw, &kept); err != nil {
			t.Fatalf("%s: the kept result %.200s: %v", id, raw, err)
		}
		if !reflect.DeepEqual(kept, r.Out) {
			t.Errorf("%s: kept\n%s\nanswered\n%v", id, raw, r.Out)
		}
	}
	if e, _ := st.Info(context.Background(), crash.Out["output_id"].(string)); e.Progress != "" || e.Status != "crash" {
		t.Errorf("the finished run's entry: %+v", e)
	}
}
