package xcode_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/testutil/fakexcode"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/output"
	"github.com/triage-dev/triage/internal/workflow/session"
	xcodewf "github.com/triage-dev/triage/internal/workflow/xcode"
)

// fixtures is the shared corpus, read in place.
const fixtures = "../../../../shared/fixtures"

// xcodeTestdata holds internal/xcode's recorded tool outputs.
const xcodeTestdata = "../../xcode/testdata"

func testdata(t *testing.T, name string) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join(xcodeTestdata, name))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func fixture(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{fixtures}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("fixture %s absent (the shared fixtures live beside the repository): %v", p, err)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// env is a test's fake Xcode: a project, a report directory, the fake
// tools on PATH and a connected client.
type env struct {
	c         *mcptest.Client
	fake      *fakexcode.Fake
	project   string // .../App.xcodeproj
	reportDir string
}

// listJSON is what the fake `xcodebuild -list -json` says of App.xcodeproj.
// Its schemes include the processes of the crash report fixtures, so that
// their reports count as the app's.
const listJSON = `{"project":{"name":"App","schemes":["App","AppUITests","MemoryLeakingApp","TableSearch","asi"],"targets":["App","AppTests","AppUITests"],"configurations":["Debug","Release"]}}`

// newEnv installs the fake with rules after the standard -list rule and
// connects a client to session, xcode and output forced available.
func newEnv(t *testing.T, rules ...fakexcode.Rule) *env {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir()) // result bundles land here
	e := &env{project: filepath.Join(t.TempDir(), "App.xcodeproj"), reportDir: t.TempDir()}
	if err := os.Mkdir(e.project, 0o755); err != nil {
		t.Fatal(err)
	}
	all := append([]fakexcode.Rule{{Tool: "xcodebuild", Match: []string{"-list", "-json"}, Stdout: listJSON}}, rules...)
	e.fake = fakexcode.Install(t, fakexcode.Scenario{Rules: all})
	opts := apple.Options{Available: func() error { return nil }, ReportDirs: []string{e.reportDir}}
	e.c = mcptest.ConnectCatalog(t, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{session.Workflow(svc), xcodewf.WorkflowWith(svc, opts), output.Workflow(svc)}
	})
	return e
}

func (e *env) args(extra map[string]any) map[string]any {
	a := map[string]any{"project_path": e.project, "scheme": "App"}
	for k, v := range extra {
		a[k] = v
	}
	return a
}

func mustParseTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}
