package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/benchreport"
	"github.com/triage-dev/triage/internal/spawn"
)

// budgets measures tools/list of the default and of all workflows and adds
// the token figures to res.
func budgets(ctx context.Context, triage string, rep *benchreport.Report, res benchreport.Results) error {
	var err error
	if rep.Default, err = toolsList(ctx, triage); err != nil {
		return err
	}
	// serve enables only the workflows available here; the others are
	// measured from `triage tools --json --all`, as tools/list would send them.
	var js bytes.Buffer
	if err := command(ctx, map[string]string{"TRIAGE_STORE": ":memory:"}, &js, triage, "tools", "--json", "--all"); err != nil {
		return fmt.Errorf("triage tools --json --all: %w", err)
	}
	all, err := benchreport.ParseToolsJSON(js.Bytes())
	if err != nil {
		return err
	}
	rep.All = benchreport.WithTools(rep.Default, all)
	var text bytes.Buffer
	if err := command(ctx, map[string]string{"TRIAGE_STORE": ":memory:"}, &text, triage, "tools", "--all"); err != nil {
		return fmt.Errorf("triage tools --all: %w", err)
	}
	wf := benchreport.ParseWorkflows(text.String())
	for _, b := range []*benchreport.Budget{&rep.Default, &rep.All} {
		for i := range b.Tools {
			b.Tools[i].Workflow = wf[b.Tools[i].Name]
		}
	}
	res[benchreport.TokensKey] = map[string][]float64{
		"default-bytes": {float64(rep.Default.Bytes)}, "default-tokens": {float64(benchreport.Tokens(rep.Default.Bytes))},
		"all-bytes": {float64(rep.All.Bytes)}, "all-tokens": {float64(benchreport.Tokens(rep.All.Bytes))},
	}
	return nil
}

// toolsList starts `triage serve` on stdio and returns the size
// of its tools/list response as sent.
func toolsList(ctx context.Context, triage string) (benchreport.Budget, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	lines := &lineWriter{want: []byte(`"id":2,`), found: make(chan []byte, 1)}
	p, stdin, err := spawn.StartInteractive(ctx, spawn.Spec{
		Argv:   []string{triage, "serve"},
		Env:    map[string]string{"TRIAGE_STORE": ":memory:"},
		Stdout: lines, Stderr: os.Stderr,
	})
	if err != nil {
		return benchreport.Budget{}, err
	}
	defer func() { stdin.Close(); p.Stop(time.Second) }()
	_, err = stdin.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"benchreport","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n")
	if err != nil {
		return benchreport.Budget{}, err
	}
	select {
	case line := <-lines.found:
		return benchreport.ParseToolsList(line)
	case <-p.Done():
		return benchreport.Budget{}, errors.New("triage serve exited before answering tools/list")
	case <-ctx.Done():
		return benchreport.Budget{}, fmt.Errorf("tools/list: %w", ctx.Err())
	}
}

// lineWriter sends the first complete line containing want.
type lineWriter struct {
	want  []byte
	buf   []byte
	found chan []byte
	done  bool
}

func (w *lineWriter) Write(p []byte) (int, error) {
	if w.done {
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := w.buf[:i]
		if bytes.Contains(line, w.want) {
			w.done = true
			w.found <- bytes.Clone(line)
			w.buf = nil
			return len(p), nil
		}
		w.buf = w.buf[i+1:]
	}
}

// fixtureSizes puts every fixture log (the shared xcodebuild logs and the
// logfilter corpus) through `triage filter` and measures its response.
func fixtureSizes(ctx context.Context, triage, shared string) ([]benchreport.Fixture, string) {
	var logs []string
	note := ""
	sharedLogs, _ := filepath.Glob(filepath.Join(shared, "xcodebuild", "*"))
	junit, _ := filepath.Glob(filepath.Join(shared, "junit", "*.xml"))
	sharedLogs = append(sharedLogs, junit...)
	if len(sharedLogs) == 0 {
		note = fmt.Sprintf("The shared fixtures (%s) are absent: only the logfilter corpus was measured.", shared)
	}
	own, _ := filepath.Glob("internal/logfilter/testdata/*.log")
	sort.Strings(sharedLogs)
	sort.Strings(own)
	logs = append(sharedLogs, own...)
	var out []benchreport.Fixture
	for _, path := range logs {
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		var filtered countWriter
		// A failing log makes filter exit 1; the response is what counts.
		argv := []string{triage, "filter", "--level", "standard", path}
		if filepath.Ext(path) == ".xml" {
			argv = []string{triage, "filter", "--level", "standard", "--toolchain", "junit", path}
		}
		res, err := spawn.Run(ctx, spawn.Spec{Argv: argv, Stdout: &filtered, Timeout: time.Minute})
		if err != nil || !res.Exited || res.ExitCode > 1 {
			note += fmt.Sprintf(" %s: triage filter failed (%v %v).", path, res, err)
			continue
		}
		out = append(out, benchreport.Fixture{Name: fixtureName(path), Raw: int(st.Size()), Filtered: int(filtered)})
	}
	if len(out) == 0 && note == "" {
		note = "no fixture logs found"
	}
	return out, note
}

// fixtureName names a shared fixture by its directory and file, a corpus
// log by its path in the repository.
func fixtureName(path string) string {
	if !filepath.IsAbs(path) && !strings.HasPrefix(path, "..") {
		return filepath.ToSlash(path)
	}
	return filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }
