package server

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/fakexcode"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/testutil/txtar"
	"github.com/triage-dev/triage/internal/workflow/apple"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/golden")

// TestGolden replays every transcript of testdata/golden in a session of its
// own and compares what the agent reads with what the transcript says.
//
// A transcript is a txtar archive. Its comment says what it shows; a
// "needs: TOOL..." line in it names the tools it cannot do without. Its
// sections, in order:
//
//	-- $WORK/PATH --           a file written into the work directory first
//	-- fakexcode.json --       a fakexcode.Scenario: the fake xcodebuild and
//	                           xcrun on PATH, the Apple workflows available
//	-- N TOOL.json --          the arguments of the Nth call (may be empty)
//	-- N TOOL.text (OUTCOME) -- the text content it answered, with the
//	                           triage/outcome of its _meta (and isError)
//	-- N TOOL.structured --    its structured content, pinned only when the
//	                           transcript has this section
//
// Arguments may name placeholders: $WORK (the work directory), $STORE (the
// output store's directory), $XCODE_TESTDATA (internal/xcode's recorded
// outputs), $CRASHER_NAME (a program of testutil/crashers, built on first
// use), and any id an earlier answer brought ($OUT1 for the first output
// id, $PID1 for the first pid, $DUMP1 for the first dump session). Answers
// are normalised the other way round, and what cannot be named so becomes
// <dur>, <time>, <addr>, <n>, <hash> (see normalise).
func TestGolden(t *testing.T) {
	paths, err := filepath.Glob("testdata/golden/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no transcripts in testdata/golden: %v", err)
	}
	notUnderMake(t)
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			replay(t, path)
		})
	}
}

// notUnderMake removes what make passes to its recipes (`make golden`):
// a make the tools start would read them and print "make[1]: Entering
// directory" lines an agent's session has not.
func notUnderMake(t *testing.T) {
	for _, name := range []string{"MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES"} {
		if v, ok := os.LookupEnv(name); ok {
			os.Unsetenv(name)
			t.Cleanup(func() { os.Setenv(name, v) })
		}
	}
}

func replay(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := txtar.Parse(data)
	for _, line := range strings.Split(want.Comment, "\n") {
		if tools, ok := strings.CutPrefix(line, "needs:"); ok {
			nativeprojects.Need(t, strings.Fields(tools)...)
		}
	}
	g := newGoldenSession(t, want)
	got := &txtar.Archive{Comment: want.Comment}
	for _, f := range want.Files {
		switch {
		case f.Name == fakeXcodeSection:
			got.Files = append(got.Files, f)
		case strings.HasPrefix(f.Name, "$WORK/"):
			g.writeFile(f)
			got.Files = append(got.Files, f)
		case strings.HasSuffix(f.Name, ".json"):
			got.Files = append(got.Files, f)
			got.Files = append(got.Files, g.call(f, want)...)
		case isAnswer(f.Name):
			// Regenerated after its call.
		default:
			t.Fatalf("%s: section %q is neither a $WORK/ file, a call's arguments nor its answer", path, f.Name)
		}
	}
	out := txtar.Format(got)
	if *update {
		if !bytes.Equal(out, data) {
			if err := os.WriteFile(path, out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if diff := firstDifference(string(data), string(out)); diff != "" {
		t.Errorf("%s differs from this session (make golden rewrites it):\n%s", path, diff)
	}
}

var answerName = regexp.MustCompile(`^\d+ \w+\.(text \(.*\)|structured)$`)

func isAnswer(name string) bool { return answerName.MatchString(name) }

// goldenSession is one transcript's server, client and placeholders.
type goldenSession struct {
	t     *testing.T
	cs    *mcp.ClientSession
	work  string
	vars  map[string]string // placeholder → value, for arguments
	ids   map[string]string // volatile id → placeholder, for answers
	count map[string]int    // placeholders given per kind
}

// fakeXcodeSection holds a fakexcode.Scenario (JSON, placeholders
// expanded): the transcript runs with the fake xcodebuild and xcrun on
// PATH and the Apple workflows served as on a Mac.
const fakeXcodeSection = "fakexcode.json"

func newGoldenSession(t *testing.T, a *txtar.Archive) *goldenSession {
	store := t.TempDir()
	g := &goldenSession{t: t, work: t.TempDir(), ids: map[string]string{}, count: map[string]int{}}
	xcodeData, _ := filepath.Abs("../xcode/testdata")
	g.vars = map[string]string{"$WORK": g.work, "$STORE": store, "$XCODE_TESTDATA": xcodeData}
	svc := newServices(t, &config.Config{Store: config.Store{Path: filepath.Join(store, "triage.db")}})
	var opts Options
	if scenario, ok := a.Get(fakeXcodeSection); ok {
		opts.Catalog = g.fakeXcode(svc, scenario)
	}
	srv, err := New(svc, opts)
	if err != nil {
		t.Fatal(err)
	}
	g.cs = connect(t, srv, nil)
	return g
}

// fakeXcode installs the fake Apple tools a scenario describes and returns
// the catalog with the Apple workflows available, their crash reports
// searched for in a directory of the test's.
func (g *goldenSession) fakeXcode(svc *services.Set, scenario string) *catalog.Catalog {
	var sc fakexcode.Scenario
	if err := json.Unmarshal([]byte(g.expand(scenario)), &sc); err != nil {
		g.t.Fatalf("%s: %v", fakeXcodeSection, err)
	}
	fakexcode.Install(g.t, sc)
	return macCatalog(svc, apple.Options{Available: func() error { return nil }, ReportDirs: []string{g.t.TempDir()}})
}

func (g *goldenSession) writeFile(f txtar.File) {
	p := filepath.Join(g.work, strings.TrimPrefix(f.Name, "$WORK/"))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		g.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(f.Data), 0o644); err != nil {
		g.t.Fatal(err)
	}
}

var placeholder = regexp.MustCompile(`\$[A-Z][A-Za-z0-9_]*`)

// expand replaces the placeholders of a call's arguments; others are left
// as they are.
func (g *goldenSession) expand(s string) string {
	return placeholder.ReplaceAllStringFunc(s, func(p string) string {
		if v, ok := g.vars[p]; ok {
			return v
		}
		if name, ok := strings.CutPrefix(p, "$CRASHER_"); ok {
			g.vars[p] = crashers.Build(g.t, name)
			return g.vars[p]
		}
		return p // a shell's variable, say: an unknown id shows in the answer
	})
}

// call makes the call whose arguments are f and returns its answer's
// sections; prev says whether the transcript pins its structured content.
func (g *goldenSession) call(f txtar.File, prev *txtar.Archive) []txtar.File {
	g.t.Helper()
	stem := strings.TrimSuffix(f.Name, ".json")
	_, tool, ok := strings.Cut(stem, " ")
	if !ok {
		g.t.Fatalf("section %q: want \"N TOOL.json\"", f.Name)
	}
	g.keepLiteralIDs(f.Data)
	var args map[string]any
	if s := strings.TrimSpace(f.Data); s != "" {
		if err := json.Unmarshal([]byte(g.expand(s)), &args); err != nil {
			g.t.Fatalf("%s: arguments: %v", f.Name, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := g.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return []txtar.File{{Name: stem + ".text (protocol error)", Data: g.normalise(err.Error())}}
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	outcome := fmt.Sprint(res.Meta[catalog.OutcomeKey])
	if res.IsError {
		outcome += ", isError"
	}
	answer := []txtar.File{{Name: fmt.Sprintf("%s.text (%s)", stem, outcome), Data: g.normalise(text.String())}}
	if _, pinned := prev.Get(stem + ".structured"); pinned {
		raw, err := json.MarshalIndent(res.StructuredContent, "", "  ")
		if err != nil {
			g.t.Fatal(err)
		}
		answer = append(answer, txtar.File{Name: stem + ".structured", Data: g.normalise(string(raw))})
	}
	return answer
}
