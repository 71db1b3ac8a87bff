package benchreport

import (
	"strings"
	"testing"
)

const sample = `goos: linux
pkg: github.com/triage-dev/triage/e2e
BenchmarkColdStart-2   	      10	  52345678 ns/op	         9.5 bare-RSS-MB	        20.0 bare-ms	         1.5 ratio	        15.0 triage-RSS-MB	        30.0 triage-ms
BenchmarkColdStart-2   	      10	  52345678 ns/op	         9.5 bare-RSS-MB	        10.0 bare-ms	         5.0 ratio	        15.0 triage-RSS-MB	        50.0 triage-ms
BenchmarkColdStart-2   	      10	  52345678 ns/op	         9.5 bare-RSS-MB	        20.0 bare-ms	         1.9 ratio	        15.0 triage-RSS-MB	        38.0 triage-ms
BenchmarkSearch/fold-2           	       2	  95546684 ns/op	 702.37 MB/s	        49.77 grep-ms	         0.9198 ratio-vs-grep
--- SKIP: BenchmarkStack
    debug_test.go:224: lldb-vscode-16 not found
--- BENCH: BenchmarkStandard-2
    bench_test.go:80: grep -c counted 5 lines in 1s
PASS
ok  	github.com/triage-dev/triage/e2e	23.105s
`

func TestAddParsesRunsMetricsAndSkips(t *testing.T) {
	res := Results{}
	skips := res.Add("./e2e", strings.NewReader(sample))
	cold := res[Key("./e2e", "BenchmarkColdStart")]
	if got := cold["triage-ms"]; len(got) != 3 || got[0] != 30 || got[1] != 50 || got[2] != 38 {
		t.Errorf("triage-ms samples: %v", got)
	}
	if got := cold["ns/op"]; len(got) != 3 {
		t.Errorf("ns/op samples: %v", got)
	}
	if got := res[Key("./e2e", "BenchmarkSearch/fold")]["MB/s"]; len(got) != 1 || got[0] != 702.37 {
		t.Errorf("sub-benchmark MB/s: %v", got)
	}
	if len(skips) != 1 || skips[0].Key != Key("./e2e", "BenchmarkStack") || skips[0].Reason != "lldb-vscode-16 not found" {
		t.Errorf("skips: %+v", skips)
	}
	if len(res) != 2 {
		t.Errorf("benchmarks: %v", res)
	}
}

func TestSummarize(t *testing.T) {
	s, ok := Summarize([]float64{5, 1, 3})
	if !ok || s.Median != 3 || s.Min != 1 || s.Max != 5 || s.N != 3 {
		t.Errorf("odd: %+v", s)
	}
	if s, _ := Summarize([]float64{4, 1, 2, 3}); s.Median != 2.5 {
		t.Errorf("even median: %+v", s)
	}
	if _, ok := Summarize(nil); ok {
		t.Error("no samples summarized")
	}
}

func TestJudge(t *testing.T) {
	for _, tt := range []struct {
		op           string
		limit, value float64
		want         Verdict
	}{
		{"<=", 3, 3, Met},
		{"<=", 3, 5.9, Missed},
		{"<=", 3, 6.1, Regression},
		{">=", 300, 300, Met},
		{">=", 300, 151, Missed},
		{">=", 300, 149, Regression},
		{"<=", 0, 0, Met},
		{"<=", 0, 1, Regression},
		{"", 0, 42, NoTarget},
	} {
		if got := judge(tt.op, tt.limit, tt.value); got != tt.want {
			t.Errorf("%v %s %v: %v, want %v", tt.value, tt.op, tt.limit, got, tt.want)
		}
	}
}

func TestEvaluate(t *testing.T) {
	res := Results{}
	res.Add("./e2e", strings.NewReader(sample))
	figs := []Figure{
		{Title: "cold", Key: Key("./e2e", "BenchmarkColdStart"), Value: "triage-ms", Unit: "ms", Base: "bare-ms",
			Check: "ratio", CheckUnit: "×", Op: "<=", Limit: 2},
		{Title: "ns", Key: Key("./e2e", "BenchmarkColdStart"), Value: "ns/op", Unit: "ms", Scale: 1e-6},
		{Title: "stack", Key: Key("./e2e", "BenchmarkStack"), Value: "overhead-ms", Op: "<=", Limit: 2},
		{Title: "gone", Key: Key("./e2e", "BenchmarkGone"), Value: "x", Op: "<=", Limit: 2},
	}
	rows := Evaluate(figs, res, map[string]string{Key("./e2e", "BenchmarkStack"): "lldb-vscode-16 not found"})
	cold := rows[0]
	if cold.Verdict != Met || cold.Check.Median != 1.9 || cold.Value.Median != 38 || !cold.HasBase || cold.Base.Median != 20 {
		t.Errorf("cold start row: %+v", cold)
	}
	// Ratios are taken run by run: 1.5, 5, 1.9.
	if cold.Ratio.Median != 1.9 || cold.Ratio.Max != 5 {
		t.Errorf("ratio: %+v", cold.Ratio)
	}
	if rows[1].Value.Median < 52.3 || rows[1].Value.Median > 52.4 {
		t.Errorf("scaled ns/op: %+v", rows[1].Value)
	}
	if rows[2].Verdict != NotMeasured || rows[2].Why != "lldb-vscode-16 not found" {
		t.Errorf("skipped row: %+v", rows[2])
	}
	if rows[3].Verdict != NotMeasured || rows[3].Why == "" {
		t.Errorf("missing row: %+v", rows[3])
	}
	rep := &Report{Runs: 3, Rows: rows}
	doc := rep.Render()
	for _, want := range []string{
		"**1 of 3 targets met.** Not met: stack (not measured); gone (not measured).",
		"| cold | 38 ms (30–50) | : 20 ms (10–20) | 1.90× (1.50–5) | ≤ 2× | 1.90× ✓ |",
		"| stack | not measured: lldb-vscode-16 not found | | | ≤ 2 | ✗ not measured |",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %q:\n%s", want, doc)
		}
	}
}

func TestSuiteCoversEveryFigure(t *testing.T) {
	for _, f := range Figures {
		if f.Key == TokensKey {
			continue
		}
		found := false
		for _, p := range Suite {
			if p.Runs(f.Key) {
				found = true
			}
		}
		if !found {
			t.Errorf("figure %q: no package of the suite runs %s", f.Title, f.Key)
		}
	}
}

func TestTargetText(t *testing.T) {
	for _, tt := range []struct {
		f    Figure
		want string
	}{
		{Figure{Value: "triage-ms", Unit: "ms", Check: "overhead-ms", Op: "<=", Limit: 3}, "overhead ≤ 3 ms"},
		{Figure{Value: "search-ms", Unit: "ms", Check: "ratio-vs-grep", CheckUnit: "×", Op: "<=", Limit: 3}, "≤ 3×"},
		{Figure{Value: "MB/s", Unit: "MB/s", Op: ">=", Limit: 300}, "≥ 300 MB/s"},
		{Figure{Value: "default-tokens", Unit: "tokens", Op: "<=", Limit: 6000}, "≤ 6,000 tokens"},
		{Figure{Value: "x"}, "—"},
	} {
		if got := tt.f.TargetText(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.f, got, tt.want)
		}
	}
}

func TestMergeKeepsHandWrittenPart(t *testing.T) {
	old := "# old generated\n\n| a |\n\n" + Marker + "\n\n## Profiles\n\nhand text\n"
	got := Merge(old, "# new\n\ntable\n")
	want := "# new\n\ntable\n\n" + Marker + "\n\n## Profiles\n\nhand text\n"
	if got != want {
		t.Errorf("merge:\n%s\nwant:\n%s", got, want)
	}
	if again := Merge(got, "# new\n\ntable\n"); again != want {
		t.Errorf("second merge changed the document:\n%s", again)
	}
	if first := Merge("## Notes\n", "# gen\n"); first != "# gen\n\n"+Marker+"\n\n## Notes\n" {
		t.Errorf("document without marker: %q", first)
	}
}

func TestToolsBudget(t *testing.T) {
	resp := `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","description":"abc","inputSchema":{"type":"object"}},{"name":"b","description":"d","inputSchema":{},"outputSchema":{"x":1}}]}}` + "\n"
	b, err := ParseToolsList([]byte(resp))
	if err != nil {
		t.Fatal(err)
	}
	if b.Bytes != len(resp)-1 || len(b.Tools) != 2 {
		t.Fatalf("budget: %+v", b)
	}
	a := b.Tools[0]
	if a.Name != "a" || a.Description != 5 || a.Input != 17 || a.Output != 0 || a.Total != len(`{"name":"a","description":"abc","inputSchema":{"type":"object"}}`) {
		t.Errorf("tool a: %+v", a)
	}
	if b.Tools[1].Output != 7 {
		t.Errorf("tool b: %+v", b.Tools[1])
	}
	if _, err := ParseToolsList([]byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}}`)); err == nil {
		t.Error("error response measured")
	}

	// The indented --json form measures as the compact wire form.
	all, err := ParseToolsJSON([]byte("[\n  {\n    \"name\": \"a\",\n    \"description\": \"abc\",\n    \"inputSchema\": {\"type\": \"object\"}\n  },\n" +
		"  {\"name\": \"b\", \"description\": \"d\", \"inputSchema\": {}, \"outputSchema\": {\"x\": 1}},\n  {\"name\": \"c\", \"description\": \"\", \"inputSchema\": {}}\n]"))
	if err != nil {
		t.Fatal(err)
	}
	if all[0] != a || all[1] != b.Tools[1] {
		t.Errorf("--json sizes %+v differ from the wire's %+v", all, b.Tools)
	}
	if w := WithTools(b, all); w.Bytes != b.Bytes+1+all[2].Total {
		t.Errorf("budget with a third tool: %d bytes, want %d", w.Bytes, b.Bytes+1+all[2].Total)
	}
	if Tokens(8) != 2 || Tokens(9) != 3 {
		t.Error("tokens are bytes/4, rounded up")
	}
}

func TestParseWorkflows(t *testing.T) {
	m := ParseWorkflows("session — Set defaults.\n  session_set_defaults   Set.\nrun — Run.\n  run   Run a program.\n  build  Build.\n")
	if m["session_set_defaults"] != "session" || m["run"] != "run" || m["build"] != "run" || len(m) != 3 {
		t.Errorf("workflows: %v", m)
	}
}

func TestAlternativeTarget(t *testing.T) {
	res := Results{}
	res.Add("./d", strings.NewReader(
		"BenchmarkU-2  10  1 ns/op  1.0 engine-ms  2.5 mcp-ms  150 overhead-%  1.5 overhead-ms\n"+
			"BenchmarkV-2  10  1 ns/op  1.0 engine-ms  13 mcp-ms  1200 overhead-%  12 overhead-ms\n"))
	or := &Target{Check: "overhead-ms", Unit: "ms", Op: "<=", Limit: 5}
	figs := []Figure{
		{Title: "u", Key: Key("./d", "BenchmarkU"), Value: "mcp-ms", Unit: "ms", Check: "overhead-%", CheckUnit: "%", Op: "<=", Limit: 10, Or: or},
		{Title: "v", Key: Key("./d", "BenchmarkV"), Value: "mcp-ms", Unit: "ms", Check: "overhead-%", CheckUnit: "%", Op: "<=", Limit: 10, Or: or},
	}
	rows := Evaluate(figs, res, nil)
	if rows[0].Verdict != Met {
		t.Errorf("+150%% but +1.5 ms: %v, want met", rows[0].Verdict)
	}
	if rows[1].Verdict != Regression {
		t.Errorf("+1200%% and +12 ms: %v, want regression", rows[1].Verdict)
	}
	if got := figs[0].TargetText(); got != "overhead ≤ 10% or overhead ≤ 5 ms" {
		t.Errorf("target text %q", got)
	}
	if md := rows[0].markdown(); !strings.Contains(md, "| 150%, 1.50 ms ✓ |") {
		t.Errorf("row: %s", md)
	}
}

func TestPackageRuns(t *testing.T) {
	p := Package{Dir: "./d", Bench: "^BenchmarkCommand(Cached|Uncached)$"}
	for key, want := range map[string]bool{
		Key("./d", "BenchmarkCommandCached"):         true,
		Key("./d", "BenchmarkCommandUncached/sub"):   true,
		Key("./d", "BenchmarkKernelCommandUncached"): false,
		Key("./e", "BenchmarkCommandCached"):         false,
	} {
		if got := p.Runs(key); got != want {
			t.Errorf("Runs(%q) = %v, want %v", key, got, want)
		}
	}
	sub := Package{Dir: "./d", Bench: "^BenchmarkCover$/^(a|b)$"}
	for key, want := range map[string]bool{
		Key("./d", "BenchmarkCover/a"):   true,
		Key("./d", "BenchmarkCover/b/x"): true,
		Key("./d", "BenchmarkCover/c"):   false,
		Key("./d", "BenchmarkCover/ab"):  false,
		Key("./d", "BenchmarkCoverX/a"):  false,
	} {
		if got := sub.Runs(key); got != want {
			t.Errorf("Runs(%q) = %v, want %v", key, got, want)
		}
	}
}
