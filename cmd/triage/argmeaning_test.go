package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

// Every argument of every tool, in every workflow, says what it is in
// `triage TOOL --help`: none is a bare name and type (issue 45: build's
// --args, --env, --jobs; debug_attach's --debugger_backend).
func TestToolHelpDescribesEveryArgument(t *testing.T) {
	g := globals{logLevel: "error"}
	srv, svc, err := g.newServer(&bytes.Buffer{}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	all := srv.Catalog.SelectAll()
	line := regexp.MustCompile(`^  --(\S+)\s+(\S+)\s*(?:\(required\))?\s*(.*)$`)
	for _, tool := range all.Tools {
		var out bytes.Buffer
		if err := writeToolHelp(&out, srv.Selection, all, tool.Name); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(out.String(), "\n") {
			if m := line.FindStringSubmatch(l); m != nil && strings.TrimSpace(m[3]) == "" {
				t.Errorf("%s --help: --%s is undescribed", tool.Name, m[1])
			}
		}
	}
}

// The lines the issue saw undescribed, as the binary's own --help prints
// them.
func TestToolHelpNamedArguments(t *testing.T) {
	for tool, wants := range map[string][]string{
		"build":        {"--args", "--env", "--jobs"},
		"debug_attach": {"--debugger_backend", "--backend", "--core", "--pid"},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{tool, "--help"}, strings.NewReader(""), &out, &errb); code != exitOK {
			t.Fatalf("%s --help: exit %d", tool, code)
		}
		for _, want := range wants {
			re := regexp.MustCompile(`(?m)^  ` + want + `\s+\S+\s+\S.*$`)
			if !re.MatchString(out.String()) {
				t.Errorf("%s --help: %s undescribed:\n%s", tool, want, out.String())
			}
		}
	}
	var out, errb bytes.Buffer
	run(context.Background(), []string{"debug_attach", "--help"}, strings.NewReader(""), &out, &errb)
	if !strings.Contains(out.String(), "--backend wins") {
		t.Errorf("debug_attach --help does not say how --debugger_backend and --backend meet:\n%s", out.String())
	}
}
