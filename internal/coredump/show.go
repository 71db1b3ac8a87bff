package coredump

import (
	"context"
	"errors"
	"os"

	"github.com/triage-dev/triage/internal/fault"
)

// Shown is one crash artifact read for a summary.
type Shown struct {
	Path string
	Kind FileKind
	// Program is the core's executable: the one given, else as recorded.
	Program string
	// Core and Trace are a process core's notes and the first-look
	// backtrace of its crashing thread; TraceErr says why there is none.
	Core     *CoreInfo
	Trace    *Trace
	TraceErr error
	// Reports are an Apple crash report file's reports.
	Reports []*Report
}

// Kernel reports whether the artifact is a kernel dump.
func (s *Shown) Kernel() bool {
	switch s.Kind {
	case KindVmcore, KindKdumpCompact, KindKdumpFlat:
		return true
	}
	return false
}

// Show reads the artifact at path: a process core (backtraced with
// program, "" for the one it records), an Apple crash report, or a kernel
// dump (identified only). A path that names none of them is a usage
// error that says what it is.
func Show(ctx context.Context, path, program, projectDir string) (*Shown, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fault.Usagef("%s is a directory: name a core file, .ips or .crash report in it (crash_report_list finds them)", path)
	}
	kind, err := Identify(path)
	if err != nil && !errors.Is(err, ErrUnrecognizedFormat) {
		return nil, fault.Usagef("%s: %w", path, err)
	}
	s := &Shown{Path: path, Kind: kind, Program: program}
	switch {
	case kind == KindProcessCore:
		return s, s.readCore(ctx, projectDir)
	case kind == KindAppleReport:
		return s, s.readReports()
	case s.Kernel():
		return s, nil
	}
	return nil, fault.Usagef("%s is %s, not a core dump or crash report", path, describeKind(kind))
}

// readCore reads a process core's notes and backtraces it.
func (s *Shown) readCore(ctx context.Context, projectDir string) error {
	ci, err := OpenCore(s.Path)
	if err != nil {
		return fault.Usage(err)
	}
	s.Core = ci
	if s.Program == "" {
		s.Program = ci.ExePath
	}
	s.Trace, s.TraceErr = Backtrace(ctx, s.Program, s.Path, BacktraceOptions{ProjectDir: projectDir})
	return nil
}

// readReports parses the Apple crash reports of one file.
func (s *Shown) readReports() error {
	f, err := os.Open(s.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	s.Reports, err = ParseReports(f)
	if err != nil {
		return fault.Usagef("%s: %w", s.Path, err)
	}
	return nil
}

func describeKind(k FileKind) string {
	switch k {
	case KindExecutable:
		return "an executable (pass it as program, and the core as path)"
	case KindUnknown, "":
		return "not a file triage recognises"
	}
	return "a " + string(k) + " file"
}
