// Package fakexcode installs a fake xcodebuild and xcrun for tests on
// machines without Xcode. Import it from _test files only.
//
// The fake (the program in fake/) answers each command line from a
// Scenario: the first Rule whose Match arguments appear in order among the
// arguments says what to print, how to exit (status, signal, hang) and what
// to write (a result bundle, a screenshot, crash reports). Install builds
// the program at most once per process, caching the binary like
// testutil/crashers does, and puts it first on PATH under both names.
package fakexcode

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

//go:embed fake/*.go
var sources embed.FS

// Rule answers the command lines it matches; see fake/main.go for each
// field's meaning.
type Rule struct {
	Tool         string   `json:"tool"`            // "xcodebuild" or "xcrun"
	Match        []string `json:"match,omitempty"` // arguments, in order; "*" is any one
	Stdout       string   `json:"stdout,omitempty"`
	StdoutFile   string   `json:"stdout_file,omitempty"`
	Stderr       string   `json:"stderr,omitempty"`
	Exit         int      `json:"exit,omitempty"`
	Signal       string   `json:"signal,omitempty"` // "SIGSEGV", "SIGABRT", "SIGKILL"
	Hang         bool     `json:"hang,omitempty"`
	PidFile      string   `json:"pid_file,omitempty"` // "leader child" pids of a hang
	IgnoreTerm   bool     `json:"ignore_term,omitempty"`
	ResultBundle bool     `json:"result_bundle,omitempty"` // create -resultBundlePath
	WriteArg     int      `json:"write_arg,omitempty"`     // 1: the last argument
	WriteFile    string   `json:"write_file,omitempty"`
	Reports      []string `json:"reports,omitempty"` // crash reports copied into ReportDir
	ReportDir    string   `json:"report_dir,omitempty"`
	// WriteAfter writes WriteFile to the argument after this flag
	// (devicectl's --json-output FILE).
	WriteAfter string `json:"write_after,omitempty"`
	// ReportDirAfter copies Reports into the argument after this flag
	// (devicectl's copy from --destination DIR).
	ReportDirAfter string `json:"report_dir_after,omitempty"`
}

// Scenario is what the fake tools answer.
type Scenario struct {
	Rules []Rule `json:"rules"`
	// Tools are more names the fake is installed under (macOS's open,
	// pkill), beside xcodebuild and xcrun.
	Tools []string `json:"tools,omitempty"`
}

// Fake is an installed fake.
type Fake struct {
	// Dir holds xcodebuild and xcrun; Install puts it first on PATH.
	Dir    string
	record string
}

// Call is one recorded invocation.
type Call struct {
	Tool string   `json:"tool"`
	Argv []string `json:"argv"`
}

// Install builds the fake if needed, installs it as xcodebuild, xcrun and
// sc.Tools, writes the scenario, and sets PATH
// and FAKEXCODE_SCENARIO for the rest of the test (so the test cannot be
// parallel).
func Install(t testing.TB, sc Scenario) *Fake {
	t.Helper()
	bin := build(t)
	dir := t.TempDir()
	f := &Fake{Dir: filepath.Join(dir, "bin"), record: filepath.Join(dir, "calls.jsonl")}
	if err := os.Mkdir(f.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range append([]string{"xcodebuild", "xcrun"}, sc.Tools...) {
		if err := os.Symlink(bin, filepath.Join(f.Dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	doc := struct {
		Record string `json:"record"`
		Scenario
	}{f.record, sc}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "scenario.json")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKEXCODE_SCENARIO", path)
	t.Setenv("PATH", f.Dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return f
}

// Calls returns the invocations recorded so far, in order.
func (f *Fake) Calls(t testing.TB) []Call {
	t.Helper()
	raw, err := os.ReadFile(f.record)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var calls []Call
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		var c Call
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("fakexcode: reading the record: %v", err)
		}
		calls = append(calls, c)
	}
	return calls
}

// Find returns the first recorded call of tool whose arguments contain
// every one of args, and whether there is one.
func (f *Fake) Find(t testing.TB, tool string, args ...string) (Call, bool) {
	t.Helper()
	for _, c := range f.Calls(t) {
		if c.Tool == tool && containsAll(c.Argv, args) {
			return c, true
		}
	}
	return Call{}, false
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			if h == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

var (
	once     sync.Once
	binPath  string
	buildErr error
)

// build compiles the fake once per process, cached across runs by a hash
// of its source and the Go version.
func build(t testing.TB) string {
	t.Helper()
	once.Do(func() { binPath, buildErr = compile() })
	if buildErr != nil {
		t.Fatalf("fakexcode: %v", buildErr)
	}
	return binPath
}

func compile() (string, error) {
	h := sha256.New()
	entries, err := sources.ReadDir("fake")
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		data, err := sources.ReadFile("fake/" + e.Name())
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%s\x00", e.Name(), data)
	}
	fmt.Fprintf(h, "%s/%s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	dir := crashers.CacheDir()
	path := filepath.Join(dir, "fakexcode-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("creating the cache dir: %w", err)
	}
	tmp := fmt.Sprintf("%s.tmp%d", path, os.Getpid())
	defer os.Remove(tmp)
	var log bytes.Buffer
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv:     []string{"go", "build", "-o", tmp, "github.com/triage-dev/triage/internal/testutil/fakexcode/fake"},
		Env:      map[string]string{"CGO_ENABLED": "0"},
		Timeout:  5 * time.Minute,
		Combined: &log,
	})
	if err != nil {
		return "", fmt.Errorf("building the fake: %w", err)
	}
	if !res.Success() {
		return "", fmt.Errorf("building the fake: %s: %s", res, strings.TrimSpace(log.String()))
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("installing the fake: %w", err)
	}
	return path, nil
}
