package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"strings"
	"testing"
)

// shellWords splits an example as a POSIX shell would for the quoting the
// examples use: spaces separate words, '…' and "…" quote, no escapes.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// Every tool has two examples, and each is a valid call by the tool's own
// input schema: its argument names exist and its values have their types.
func TestToolHelpExamples(t *testing.T) {
	g := globals{logLevel: "error"}
	srv, svc, err := g.newServer(&bytes.Buffer{}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	for _, tool := range srv.Catalog.SelectAll().Tools {
		ex, ok := examples[tool.Name]
		if !ok {
			t.Errorf("%s has no examples", tool.Name)
			continue
		}
		resolved, err := tool.InputSchema().Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		props, err := schemaProperties(tool.InputSchema())
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ex {
			_, pairs, err := splitCallArgs(flag.NewFlagSet("x", flag.ContinueOnError), shellWords(e))
			if err != nil {
				t.Errorf("%s %s: %v", tool.Name, e, err)
				continue
			}
			args := map[string]any{}
			if err := applyPairs(args, pairs, props); err != nil {
				t.Errorf("triage %s %s: %v", tool.Name, e, err)
				continue
			}
			if err := resolved.Validate(args); err != nil {
				t.Errorf("triage %s %s: not a valid call: %v", tool.Name, e, err)
			}
		}
	}
	for name := range examples {
		if findTool(srv.Catalog.SelectAll(), name) == nil {
			t.Errorf("examples of %s, which is no tool", name)
		}
	}
}

// triage TOOL --help describes the tool and exits 0; an unknown tool is a
// usage error.
func TestToolHelp(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"test", "--help"}, strings.NewReader(""), &out, &errb)
	text := out.String()
	for _, want := range []string{"triage test — ", "--project_dir", "--timeout_s", "session defaults fill these", "examples:\n  triage test --project_dir ."} {
		if !strings.Contains(text, want) {
			t.Errorf("triage test --help lacks %q:\n%s", want, text)
		}
	}
	if code != exitOK {
		t.Errorf("exit %d", code)
	}
	out.Reset()
	if code := run(context.Background(), []string{"call", "no_such_tool", "--help"}, strings.NewReader(""), &out, &errb); code != exitUsage {
		t.Errorf("unknown tool --help: exit %d", code)
	}
}

// Every command's --help prints its usage and exits 0; a flag it does not
// know is a usage error (2).
func TestCommandHelpExitsZero(t *testing.T) {
	for _, cmd := range []string{"serve", "tools", "call", "daemon", "init", "doctor", "filter", "version"} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{cmd, "--help"}, strings.NewReader(""), &out, &errb); code != exitOK {
			t.Errorf("triage %s --help: exit %d\n%s%s", cmd, code, out.String(), errb.String())
		}
		if out.Len()+errb.Len() == 0 {
			t.Errorf("triage %s --help printed nothing", cmd)
		}
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"init", "--no-such-flag"}, strings.NewReader(""), &out, &errb); code != exitUsage {
		t.Errorf("triage init --no-such-flag: exit %d, want %d", code, exitUsage)
	}
}

// `triage daemon` without status or stop prints its usage line, not an
// error wrapping it, and exits 2.
func TestDaemonUsage(t *testing.T) {
	for _, args := range [][]string{{"daemon"}, {"daemon", "bogus"}} {
		var out, errb bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
		if code != exitUsage || out.Len() > 0 || !strings.Contains(errb.String(), "usage: triage daemon status|stop") || strings.Contains(errb.String(), "triage daemon: triage daemon") {
			t.Errorf("triage %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out.String(), errb.String())
		}
	}
}

// TestToolHelpSaysTimeLimits: every tool's --help says the default of
// its timeout_s and stall_s (issue 43: an agent or a person must not
// learn the ten-minute limit by waiting it out).
func TestToolHelpSaysTimeLimits(t *testing.T) {
	g := globals{logLevel: "error"}
	srv, svc, err := g.newServer(io.Discard, false)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	all := srv.Catalog.SelectAll()
	checked := 0
	for _, tool := range all.Tools {
		props := tool.InputSchema().Properties
		if props["timeout_s"] == nil && props["stall_s"] == nil {
			continue
		}
		var out bytes.Buffer
		if err := writeToolHelp(&out, srv.Selection, all, tool.Name); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(out.String(), "\n") {
			arg := strings.HasPrefix(line, "  --timeout_s ") || strings.HasPrefix(line, "  --stall_s ")
			if arg && !strings.Contains(line, "default") {
				t.Errorf("%s --help: %q says no default", tool.Name, line)
			}
		}
		checked++
	}
	var out bytes.Buffer
	if err := writeToolHelp(&out, srv.Selection, all, "run"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--timeout_s          number   seconds; default 600 (built in", "--stall_s            number   default 30: end as HUNG"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("run --help lacks %q:\n%s", want, out.String())
		}
	}
	if checked < 5 {
		t.Errorf("only %d tools with a time limit", checked)
	}
}
