package coverage

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// profileExt is what LLVM's profile runtime writes (LLVM_PROFILE_FILE).
const profileExt = ".profraw"

// maxObjects bounds the executables one llvm-cov export reads.
const maxObjects = 5000

// llvmTimeout bounds llvm-profdata merge and llvm-cov export each.
const llvmTimeout = 10 * time.Minute

// Profiles lists the raw profiles in dir (not below it: the run writes them
// all there), at most maxDataFiles.
func Profiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), profileExt) {
			if len(files) >= maxDataFiles {
				return nil, fmt.Errorf("more than %d %s files in %s", maxDataFiles, profileExt, dir)
			}
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	return files, nil
}

// RemoveProfiles removes the raw profiles in dir, so that a run counts
// itself only.
func RemoveProfiles(dir string) error {
	files, err := Profiles(dir)
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing the last run's profiles: %w", err)
		}
	}
	return err
}

// cargoMessage is the part of a cargo JSON message (--message-format=json)
// that names a built executable.
type cargoMessage struct {
	Reason     string `json:"reason"`
	Executable string `json:"executable"`
}

// CargoObjects runs argv (cargo test --no-run --message-format=json, with
// the run's own flags and environment, so nothing is rebuilt) and returns
// the executables cargo names: the test binaries and the programs built
// for them, every one a test may have run.
func CargoObjects(ctx context.Context, argv []string, dir string, env map[string]string) ([]string, error) {
	pr, pw := io.Pipe()
	var stderr limited
	listed := make(chan []string, 1)
	go func() {
		listed <- readCargoExecutables(pr)
		io.Copy(io.Discard, pr)
	}()
	res, err := spawn.Run(ctx, spawn.Spec{Argv: argv, Dir: dir, Env: env, Stdout: pw, Stderr: &stderr, Timeout: llvmTimeout})
	pw.Close()
	objects := <-listed
	if err != nil {
		return nil, fmt.Errorf("listing the test executables: %w", err)
	}
	if !res.Success() {
		return nil, fmt.Errorf("listing the test executables: %s failed (%s): %s", strings.Join(argv, " "), res, lastLines(stderr.String(), 5))
	}
	if len(objects) == 0 {
		return nil, fmt.Errorf("listing the test executables: %s named none", strings.Join(argv, " "))
	}
	return objects, nil
}

// readCargoExecutables reads cargo's JSON messages for the executables
// built, each once, at most maxObjects; what is not a message is skipped.
func readCargoExecutables(r io.Reader) []string {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxStoredLine)
	seen := map[string]bool{}
	var objects []string
	for sc.Scan() && len(objects) < maxObjects {
		var m cargoMessage
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Reason != "compiler-artifact" || m.Executable == "" || seen[m.Executable] {
			continue
		}
		seen[m.Executable] = true
		objects = append(objects, m.Executable)
	}
	return objects
}

// RunLLVMCov merges the raw profiles (llvm-profdata merge -sparse, into
// work) and reads the line counts llvm-cov export gives for them and the
// objects, as LCOV, into a report of dir's files; what is under generated
// (the build's target directory) is generated.
func RunLLVMCov(ctx context.Context, t *LLVMTools, profiles, objects []string, work, dir string, generated []string) (*Report, error) {
	merged := filepath.Join(work, "merged.profdata")
	list := filepath.Join(work, "profiles.txt")
	// A list file, not arguments: a run may leave more profiles than a
	// command line holds. Their names have no comma, which the list
	// would read as a weight.
	if err := os.WriteFile(list, []byte(strings.Join(profiles, "\n")+"\n"), 0o600); err != nil {
		return nil, err
	}
	var stderr limited
	argv := []string{t.Profdata, "merge", "-sparse", "--input-files=" + list, "-o", merged}
	res, err := spawn.Run(ctx, spawn.Spec{Argv: argv, Dir: work, Stderr: &stderr, Timeout: llvmTimeout})
	if err == nil && !res.Success() {
		err = fmt.Errorf("%s failed (%s): %s", strings.Join(argv[:3], " "), res, lastLines(stderr.String(), 5))
	}
	if err != nil {
		return nil, fmt.Errorf("merging the profiles: %w", err)
	}
	lc := newLineCounts()
	warnings, err := llvmCovExport(ctx, t, merged, objects, dir, lc)
	if err != nil {
		return nil, err
	}
	r := lc.report(ToolLLVM, newClassifier(dir, generated))
	if warnings != "" {
		r.Notes = append(r.Notes, "llvm-cov: "+warnings)
	}
	return r, nil
}

// llvmCovExport runs llvm-cov export -format=lcov, reading its output as it
// comes; it returns the warnings llvm-cov printed.
func llvmCovExport(ctx context.Context, t *LLVMTools, profile string, objects []string, dir string, lc *lineCounts) (string, error) {
	argv := []string{t.Cov, "export", "-format=lcov", "-skip-functions", "-instr-profile=" + profile, objects[0]}
	for _, o := range objects[1:] {
		argv = append(argv, "-object="+o)
	}
	pr, pw := io.Pipe()
	var stderr limited
	parsed := make(chan error, 1)
	go func() {
		parsed <- readLCOV(pr, dir, lc)
		io.Copy(io.Discard, pr)
	}()
	res, err := spawn.Run(ctx, spawn.Spec{Argv: argv, Dir: dir, Stdout: pw, Stderr: &stderr, Timeout: llvmTimeout})
	pw.Close()
	perr := <-parsed
	switch {
	case err != nil:
		return "", fmt.Errorf("running llvm-cov: %w", err)
	case !res.Success():
		return "", fmt.Errorf("llvm-cov export failed (%s): %s", res, lastLines(stderr.String(), 5))
	case perr != nil:
		return "", fmt.Errorf("reading llvm-cov's LCOV: %w", perr)
	}
	return lastLines(stderr.String(), 3), nil
}

// lastLines is the last n non-empty lines of s, joined by "; ".
func lastLines(s string, n int) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	return strings.Join(lines[max(0, len(lines)-n):], "; ")
}
