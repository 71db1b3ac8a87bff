package coredump

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseReport: any input gives a report or one of the package's errors,
// never a panic. Seeds are the fixtures' first 4 KiB (whole reports, even
// of 9 KB, left the fuzzing engine at a few inputs a minute; the parsers
// below the header are reached from the small synthetic seed) and the
// legacy sample.
func FuzzParseReport(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(crashReportsDir, "*"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b[:min(len(b), 4<<10)])
		}
	}
	f.Add([]byte(legacyTextBody))
	f.Add([]byte(`{"bug_type":"309"}` + "\n" + `{"threads":[{"frames":[{"imageIndex":-1}]}],"faultingThread":9}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseReport(bytes.NewReader(data))
		if err != nil {
			for _, known := range []error{ErrUnrecognizedFormat, ErrEmpty, ErrTruncated, ErrCorrupt, ErrNotCrashReport, ErrTooLarge} {
				if errors.Is(err, known) {
					return
				}
			}
			t.Fatalf("error outside the package's sentinels: %v", err)
		}
		_ = r.Summary()
	})
}

// FuzzParseBacktrace: debugger output parsers never panic.
func FuzzParseBacktrace(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, out string) {
		for _, parse := range []func(string) (*Trace, error){ParseGDBBacktrace, ParseLLDBBacktrace} {
			tr, err := parse(out)
			if err != nil && !errors.Is(err, ErrNoFrames) {
				t.Fatalf("unexpected error %v", err)
			}
			if err == nil {
				_ = tr.Summary("")
			}
		}
	})
}

// FuzzLocate: core_pattern expansion. With every value known the result is
// an exact absolute path; with the same crash's pid, uid and hostname
// unknown it is a glob, and that glob matches the exact path, so Find never
// misses the core the kernel wrote. A pipe pattern always names its helper.
func FuzzLocate(f *testing.F) {
	for _, seed := range []string{
		"core", "core.%p", "/var/crash/%e.%p.%t", "%%-%s-%u-%g-%h-%E", "|/usr/share/apport/apport -p%p -s%s -c%c",
		"cores/%f/%i%", "/tmp/a*b/[x]/%e\\%p", "%P.%I.%d",
	} {
		f.Add(seed, "/usr/bin/some-very-long-program-name", "/home/u/w", 1234, "host", false)
	}
	f.Fuzz(func(t *testing.T, pattern, exe, cwd string, pid int, host string, usesPid bool) {
		cp := parseCorePattern(pattern)
		if cp.pipe {
			_ = cp.handlerName()
			return
		}
		if pid <= 0 {
			pid = -pid + 1
		}
		cwd = filepath.Join("/", cwd)
		c := Crash{Pid: pid, Exe: filepath.Join("/", exe), Cwd: cwd, Uid: 1000, Gid: 1000, Signal: 11}
		if host == "" || host[0] == '.' {
			// A value of "." or ".." would name a directory, where the
			// kernel cannot write a core.
			host = "h" + host
		}
		full := locate(cp.raw, c, host, usesPid)
		if strings.ContainsAny(cp.raw, "%") && full.exact == "" {
			// %t, %i, %c, %d are never known: only a glob is possible.
			if full.glob == "" {
				t.Fatalf("locate(%q) gave neither a path nor a glob", cp.raw)
			}
			return
		}
		if !filepath.IsAbs(full.exact) {
			t.Fatalf("locate(%q) = %q, not absolute", cp.raw, full.exact)
		}
		partial := locate(cp.raw, Crash{Pid: 0, Exe: c.Exe, Cwd: cwd, Uid: -1, Gid: c.Gid, Signal: c.Signal}, "", usesPid)
		if partial.exact != "" {
			if partial.exact != full.exact {
				t.Fatalf("pattern %q names %q and %q for one crash", cp.raw, partial.exact, full.exact)
			}
			return
		}
		g := partial.glob
		ok, err := filepath.Match(g, full.exact)
		if err != nil || !ok {
			t.Fatalf("pattern %q: glob %q does not match the core path %q (%v)", cp.raw, g, full.exact, err)
		}
	})
}
