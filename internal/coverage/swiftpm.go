package coverage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// ToolSwiftPM names a SwiftPM run's coverage (swift test
// --enable-code-coverage): SwiftPM merges the profiles and keeps
// llvm-cov's JSON export, which swift test --show-codecov-path locates.
// Its report's tool is llvm-cov's, whose figures it holds.
const ToolSwiftPM = "swiftpm"

// swiftPMTimeout bounds swift test --show-codecov-path (it may resolve the
// package's dependencies before it answers).
const swiftPMTimeout = 5 * time.Minute

// SwiftPMCodecov asks SwiftPM where it kept the run's coverage JSON (argv:
// swift test, the run's build location flags and --show-codecov-path, run
// in dir with env) and reads it into a report of project's files; what is
// under generated (the build directory) is generated, its checkouts
// vendored.
func SwiftPMCodecov(ctx context.Context, argv []string, dir string, env map[string]string, project string, generated []string) (*Report, error) {
	var stdout tail
	var stderr limited
	res, err := spawn.Run(ctx, spawn.Spec{Argv: argv, Dir: dir, Env: env, Stdout: &stdout, Stderr: &stderr, Timeout: swiftPMTimeout})
	if err == nil && !res.Success() {
		err = fmt.Errorf("%s failed (%s): %s", strings.Join(argv, " "), res, lastLines(stderr.String(), 5))
	}
	if err != nil {
		return nil, fmt.Errorf("asking SwiftPM for its coverage JSON: %w", err)
	}
	path := lastLines(string(stdout.b), 1)
	if path == "" {
		return nil, fmt.Errorf("%s named no file", strings.Join(argv, " "))
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("SwiftPM's coverage JSON: %w (did the tests run with --enable-code-coverage?)", err)
	}
	defer f.Close()
	return ReadLLVMJSON(f, project, generated)
}

// tail keeps the last limitedMax bytes written to it: the path SwiftPM
// prints last, after whatever it printed resolving the package.
type tail struct{ b []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if extra := len(t.b) - limitedMax; extra > 0 {
		t.b = append(t.b[:0], t.b[extra:]...)
	}
	return len(p), nil
}
