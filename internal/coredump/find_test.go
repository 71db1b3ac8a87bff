package coredump

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestLocate(t *testing.T) {
	c := Crash{Pid: 4242, Exe: "/opt/my app/averyveryverylongname", Cwd: "/work/dir", Uid: 1000, Gid: 100, Signal: 11}
	for _, tc := range []struct {
		pattern string
		usesPid bool
		exact   string
		glob    string
	}{
		{"core", false, "/work/dir/core", ""},
		{"core", true, "/work/dir/core.4242", ""},
		{"core.%p", true, "/work/dir/core.4242", ""}, // %p present: no second pid
		{"/var/cores/core.%e.%p.%u.%g.%s", false, "/var/cores/core.averyveryverylo.4242.1000.100.11", ""},
		{"/var/cores/%E-%f", false, "/var/cores/!opt!my app!averyveryverylongname-averyveryverylongname", ""},
		{"/cores/%h-%%-%P", false, "/cores/box-%-4242", ""},
		{"/cores/core-%t-%i", false, "", "/cores/core-*-*"},
		{"core-%c-%d", true, "", "/work/dir/core-*-*.4242"},
		{"core%", false, "/work/dir/core", ""},      // trailing '%' dropped
		{"core%z.x", false, "/work/dir/core.x", ""}, // unknown specifier dropped
		{"/c/[x]*%t", false, "", `/c/\[x]\**`},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			got := locate(tc.pattern, c, "box", tc.usesPid)
			if got.exact != tc.exact || got.glob != tc.glob {
				t.Errorf("locate(%q) = exact %q glob %q; want %q %q", tc.pattern, got.exact, got.glob, tc.exact, tc.glob)
			}
		})
	}
	t.Run("hostile cwd", func(t *testing.T) {
		got := locate("core-%t", Crash{Pid: 1, Cwd: "/tmp/a*b"}, "", false)
		if ok, _ := filepath.Match(got.glob, "/tmp/a*b/core-123"); !ok {
			t.Errorf("glob %q does not match the literal directory", got.glob)
		}
		if ok, _ := filepath.Match(got.glob, "/tmp/aXb/core-123"); ok {
			t.Errorf("glob %q treats '*' in the cwd as a wildcard", got.glob)
		}
	})
}

// fakeSys writes a /proc/sys look-alike holding pattern and usesPid.
func fakeSys(t *testing.T, pattern string, usesPid bool) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "kernel"), 0o755)
	os.WriteFile(filepath.Join(dir, "kernel", "core_pattern"), []byte(pattern+"\n"), 0o644)
	up := "0\n"
	if usesPid {
		up = "1\n"
	}
	os.WriteFile(filepath.Join(dir, "kernel", "core_uses_pid"), []byte(up), 0o644)
	return dir
}

// TestFindRealCore crashes a real program and finds its core through this
// machine's core_pattern.
func TestFindRealCore(t *testing.T) {
	c, core := realCore(t, "segv")
	if c.Signal != 11 || !c.CoreDumped {
		t.Errorf("crash %+v: want SIGSEGV with WCOREDUMP", c)
	}
	st, err := os.Stat(core)
	if err != nil || st.Size() == 0 {
		t.Fatalf("core %s: %v", core, err)
	}
}

// TestFindPatterns moves a real core to where other core_patterns would
// have put it and checks Find follows each pattern.
func TestFindPatterns(t *testing.T) {
	c, core := realCore(t, "segv")
	data, err := os.ReadFile(core)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	pid := strconv.Itoa(c.Pid)
	for _, tc := range []struct {
		name, pattern string
		usesPid       bool
		placeAt       string // relative to c.Cwd unless absolute
	}{
		{"plain", "core", false, "core"},
		{"core_uses_pid", "core", true, "core." + pid},
		{"comm and pid", "core.%e.%p", false, "core." + commName(c.Exe) + "." + pid},
		{"absolute with time glob", filepath.Join(elsewhere, "core-%p-%t"), false, filepath.Join(elsewhere, "core-"+pid+"-1700000000")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(filepath.Join(c.Cwd, "core"))
			dest := tc.placeAt
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(c.Cwd, dest)
			}
			if err := os.WriteFile(dest, data, 0o600); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(dest)
			f := Finder{ProcSys: fakeSys(t, tc.pattern, tc.usesPid)}
			arts, err := f.Find(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if len(arts) != 1 || arts[0].Path != dest || arts[0].Kind != "core" || !strings.Contains(arts[0].Note, "SIGSEGV") {
				t.Errorf("Find = %+v, want the core at %s", arts, dest)
			}
		})
	}
	t.Run("stale core of another pid", func(t *testing.T) {
		dest := filepath.Join(c.Cwd, "core")
		os.WriteFile(dest, data, 0o600)
		other := c
		other.Pid = c.Pid + 1
		f := Finder{ProcSys: fakeSys(t, "core", false)}
		_, err := f.Find(context.Background(), other)
		if !errors.Is(err, ErrNoCore) || !strings.Contains(err.Error(), dest) {
			t.Errorf("err = %v, want ErrNoCore naming %s", err, dest)
		}
	})
	t.Run("core older than the run", func(t *testing.T) {
		dest := filepath.Join(c.Cwd, "core")
		os.WriteFile(dest, data, 0o600)
		old := time.Now().Add(-time.Hour)
		os.Chtimes(dest, old, old)
		f := Finder{ProcSys: fakeSys(t, "core", false)}
		if _, err := f.Find(context.Background(), c); !errors.Is(err, ErrNoCore) {
			t.Errorf("err = %v, want ErrNoCore", err)
		}
	})
}

func TestFindNoCore(t *testing.T) {
	cwd := t.TempDir()
	base := Crash{Pid: 99999, Exe: "/bin/prog", Cwd: cwd, Uid: 0, Gid: 0, Signal: 11, Started: time.Now()}
	for _, tc := range []struct {
		name, pattern string
		crash         func(Crash) Crash
		want          string
	}{
		{"SIGKILL", "core", func(c Crash) Crash { c.Signal = 9; return c }, "SIGKILL does not dump core"},
		{"missing file, no WCOREDUMP", "core", nil, "RLIMIT_CORE"},
		{"missing file, WCOREDUMP", "core", func(c Crash) Crash { c.CoreDumped = true; return c }, "moved or deleted"},
		{"other pipe", "|/usr/local/bin/collector %p %s", nil, "/usr/local/bin/collector"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			if tc.crash != nil {
				c = tc.crash(c)
			}
			f := Finder{ProcSys: fakeSys(t, tc.pattern, false), Wait: -1}
			arts, err := f.Find(context.Background(), c)
			var nce *NoCoreError
			if !errors.As(err, &nce) || !errors.Is(err, ErrNoCore) {
				t.Fatalf("Find = %v, %v; want a *NoCoreError", arts, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want it to say %q", err, tc.want)
			}
		})
	}
	t.Run("unreadable core_pattern", func(t *testing.T) {
		f := Finder{ProcSys: filepath.Join(cwd, "absent")}
		if _, err := f.Find(context.Background(), base); err == nil || errors.Is(err, ErrNoCore) {
			t.Errorf("err = %v, want a read error", err)
		}
	})
}

const apportReport = `ProblemType: Crash
Architecture: amd64
Date: Sun Nov 22 09:00:00 2026
ExecutablePath: /usr/bin/prog
ProcStatus:
 Name:	prog
 Umask:	0022
 Pid:	%PID%
 PPid:	1
Signal: 11
CoreDump: base64
 H4sICAAAAAAC/0NvcmVEdW1wAA==
`

func TestFindApport(t *testing.T) {
	crashDir, coreDir := t.TempDir(), t.TempDir()
	c := Crash{Pid: 31337, Exe: "/usr/bin/prog", Cwd: t.TempDir(), Signal: 11, Started: time.Now().Add(-time.Second)}
	os.WriteFile(filepath.Join(crashDir, "_usr_bin_prog.0.crash"), []byte(strings.ReplaceAll(apportReport, "%PID%", "31337")), 0o640)
	os.WriteFile(filepath.Join(crashDir, "_usr_bin_other.0.crash"), []byte(strings.ReplaceAll(apportReport, "%PID%", "4")), 0o640)
	corePath := filepath.Join(coreDir, "core._usr_bin_prog.0.6f1c2a.31337.1763802000")
	os.WriteFile(corePath, []byte("core"), 0o600)
	f := Finder{
		ProcSys:    fakeSys(t, "|/usr/share/apport/apport -p%p -s%s -c%c -d%d -P%P -u%u -g%g -- %E", false),
		CrashDir:   crashDir,
		ApportCore: coreDir,
		Wait:       -1,
	}
	arts, err := f.Find(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, a := range arts {
		kinds[a.Kind] = a.Path
	}
	if kinds["core"] != corePath || kinds["apport"] != filepath.Join(crashDir, "_usr_bin_prog.0.crash") || len(arts) != 2 {
		t.Errorf("Find = %+v", arts)
	}
	c.Pid = 5
	if _, err := f.Find(context.Background(), c); !errors.Is(err, ErrNoCore) {
		t.Errorf("other pid: err = %v, want ErrNoCore", err)
	}
}

func TestFindSystemdWithoutCoredumpctl(t *testing.T) {
	if haveTool("coredumpctl") {
		t.Skip("coredumpctl is installed: this test covers its absence")
	}
	f := Finder{ProcSys: fakeSys(t, "|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h", false), Wait: -1}
	_, err := f.Find(context.Background(), Crash{Pid: 1, Signal: 11})
	if !errors.Is(err, ErrNoCore) || !strings.Contains(err.Error(), "coredumpctl is not installed") {
		t.Errorf("err = %v", err)
	}
}

func TestCoredumpctlInfo(t *testing.T) {
	info := `           PID: 4242 (segv)
           UID: 1000 (dev)
           GID: 1000 (dev)
        Signal: 11 (SEGV)
     Timestamp: Sun 2026-11-22 09:00:00 UTC (5s ago)
  Command Line: ./segv --flag
    Executable: /home/dev/segv
       Storage: /var/lib/systemd/coredump/core.segv.1000.abc.4242.1763802000000000.zst (present)
  Size on Disk: 20.1K
       Message: Process 4242 (segv) of user 1000 dumped core.
`
	a := coredumpctlArtifact(info, 4242)
	if a.Kind != "coredumpctl" || a.Path != "/var/lib/systemd/coredump/core.segv.1000.abc.4242.1763802000000000.zst" {
		t.Errorf("artifact %+v", a)
	}
	for _, want := range []string{"/home/dev/segv", "storage present", "11 (SEGV)", "coredumpctl dump 4242"} {
		if !strings.Contains(a.Note, want) {
			t.Errorf("note %q lacks %q", a.Note, want)
		}
	}
	a = coredumpctlArtifact("PID: 1\nStorage: none\n", 1)
	if a.Path != "" || !strings.Contains(a.Note, "storage none") {
		t.Errorf("no-storage artifact %+v", a)
	}
}

func TestFindAppleReports(t *testing.T) {
	src := filepath.Join(crashReportsDir, "llvm_lldb_asi_nsexception.ips")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Skipf("crash report fixtures not available at %s: %v", crashReportsDir, err)
	}
	dir := t.TempDir()
	put := func(name string, age time.Duration) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		mt := time.Now().Add(-age)
		os.Chtimes(p, mt, mt)
		return p
	}
	want := put("asi-2022-10-07-113153.ips", 0)
	put("asi-2022-10-06-000000.ips", time.Hour) // before the run
	put("asinine-2022-10-07-113153.ips", 0)     // another process's name
	put("asi-2022-10-07-113153.txt", 0)         // not a report
	f := Finder{GOOS: "darwin", ReportDirs: []string{dir, filepath.Join(dir, "absent")}, Wait: -1}
	c := Crash{Pid: 96535, Exe: "/Users/x/asi", Started: time.Now().Add(-time.Minute)}
	arts, err := f.Find(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(arts) != 1 || arts[0].Path != want || arts[0].Kind != "ips" || !strings.Contains(arts[0].Note, "NSRangeException") {
		t.Errorf("Find = %+v, want only %s", arts, want)
	}
	c.Pid = 1
	if _, err := f.Find(context.Background(), c); !errors.Is(err, ErrNoCore) {
		t.Errorf("pid mismatch: err = %v, want ErrNoCore", err)
	}
}

func TestFindAppleReportsWaitsForReportCrash(t *testing.T) {
	src := filepath.Join(crashReportsDir, "llvm_lldb_asi_nsexception.ips")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Skipf("crash report fixtures not available at %s: %v", crashReportsDir, err)
	}
	dir := t.TempDir()
	f := Finder{GOOS: "darwin", ReportDirs: []string{dir}, Wait: time.Minute}
	c := Crash{Pid: 96535, Exe: "/Users/x/asi", Started: time.Now().Add(-time.Minute)}
	// The report appears only after Find looked once and found nothing, as
	// ReportCrash's does.
	misses := 0
	f.onMiss = func() {
		if misses++; misses == 1 {
			os.WriteFile(filepath.Join(dir, "asi-2022-10-07-113153.ips"), data, 0o644)
		}
	}
	arts, err := f.Find(context.Background(), c)
	if err != nil || len(arts) != 1 || misses != 1 {
		t.Fatalf("Find = %+v, %v after %d misses; want the report after 1 miss", arts, err, misses)
	}
}
