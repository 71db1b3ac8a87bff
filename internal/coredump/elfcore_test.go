package coredump

import (
	"debug/elf"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/crashers"
)

func TestOpenCoreReal(t *testing.T) {
	for _, tc := range []struct {
		mode, signal, code string
		fault              bool
	}{
		{"segv", "SIGSEGV", "SEGV_MAPERR", true},
		{"abort", "SIGABRT", "SI_TKILL", false},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			c, core := realCore(t, tc.mode)
			info, err := OpenCore(core)
			if err != nil {
				t.Fatal(err)
			}
			if info.Pid != c.Pid || info.SignalName != tc.signal || info.SigCode != tc.code || info.HasFaultAddr != tc.fault {
				t.Errorf("core says pid %d %s (%s) fault %v; want pid %d %s (%s) fault %v",
					info.Pid, info.SignalName, info.SigCode, info.HasFaultAddr, c.Pid, tc.signal, tc.code, tc.fault)
			}
			if tc.fault && info.FaultAddr != 0 {
				t.Errorf("fault address %#x, want 0 (a NULL store)", info.FaultAddr)
			}
			if info.Program != commName(c.Exe) || info.Args != c.Exe {
				t.Errorf("program %q args %q", info.Program, info.Args)
			}
			if info.ExePath != c.Exe {
				t.Errorf("ExePath = %q, want %q", info.ExePath, c.Exe)
			}
			if info.Threads != 1 || info.Uid != os.Getuid() || info.Truncated {
				t.Errorf("threads %d uid %d truncated %v", info.Threads, info.Uid, info.Truncated)
			}
			if err := info.MatchExe(c.Exe); err != nil {
				t.Errorf("MatchExe(own exe): %v", err)
			}
			if err := info.MatchExe("/bin/true"); !errors.Is(err, ErrExeMismatch) {
				t.Errorf("MatchExe(/bin/true) = %v, want ErrExeMismatch", err)
			}
			sum := info.Summary()
			if !strings.Contains(sum, tc.signal) || !strings.Contains(sum, c.Exe) {
				t.Errorf("Summary %q should name the signal and the program", sum)
			}
		})
	}
}

// TestCoreCompleteAfterWait checks the invariant the package doc relies on:
// once the parent's wait returns, a file core is complete (every segment's
// bytes are in the file), so Find needs no polling for file patterns.
func TestCoreCompleteAfterWait(t *testing.T) {
	_, core := realCore(t, "segv")
	ef, err := elf.Open(core)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	st, err := os.Stat(core)
	if err != nil {
		t.Fatal(err)
	}
	loads := 0
	for _, p := range ef.Progs {
		if p.Off+p.Filesz > uint64(st.Size()) {
			t.Errorf("segment at %#x needs bytes up to %d, file has %d", p.Vaddr, p.Off+p.Filesz, st.Size())
		}
		if p.Type == elf.PT_LOAD {
			loads++
		}
	}
	if loads == 0 {
		t.Error("core has no PT_LOAD segments")
	}
}

func TestOpenCoreBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var coreBytes []byte
	exe := ""
	t.Run("make core", func(t *testing.T) {
		_, core := realCore(t, "segv")
		var err error
		if coreBytes, err = os.ReadFile(core); err != nil {
			t.Fatal(err)
		}
	})
	if _, err := os.Stat("/bin/true"); err == nil {
		exe = "/bin/true"
	}
	cases := []struct {
		name string
		path string
		want error
		kind FileKind
	}{
		{"missing", filepath.Join(dir, "nope"), fs.ErrNotExist, ""},
		{"zero-length", write("empty", nil), ErrEmpty, ""},
		{"text", write("notes.txt", []byte("this is not a core\n")), ErrUnrecognizedFormat, ""},
		{"elf magic only", write("magic", []byte("\x7fELF\x02\x01\x01")), ErrTruncated, ""},
		{"elf garbage header", write("garbage", append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 120)...)), ErrCorrupt, ""},
		{"kdump", write("vmcore", append([]byte("KDUMP   "), make([]byte, 64)...)), ErrKernelDump, KindKdumpCompact},
		{"flattened", write("flat", append([]byte("makedumpfile"), make([]byte, 64)...)), ErrKernelDump, KindKdumpFlat},
		{"mach-o core", write("macho", []byte{0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1, 3, 0, 0, 0, 4, 0, 0, 0, 0, 0}), ErrNotCore, KindMachOCore},
	}
	if exe != "" {
		cases = append(cases, struct {
			name string
			path string
			want error
			kind FileKind
		}{"executable as core", exe, ErrNotCore, KindExecutable})
	}
	if coreBytes != nil {
		// Cut inside the notes (the first page holds headers and notes) and
		// inside the program headers.
		cases = append(cases,
			struct {
				name string
				path string
				want error
				kind FileKind
			}{"core cut in notes", write("cut-notes", coreBytes[:1000]), ErrTruncated, ""},
			struct {
				name string
				path string
				want error
				kind FileKind
			}{"core cut in header", write("cut-hdr", coreBytes[:40]), ErrTruncated, ""},
		)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			info, err := OpenCore(tc.path)
			if !errors.Is(err, tc.want) {
				t.Fatalf("OpenCore = %+v, %v; want %v", info, err, tc.want)
			}
			var ke *KindError
			if tc.kind != "" && (!errors.As(err, &ke) || ke.Kind != tc.kind) {
				t.Errorf("err %v: want a *KindError of kind %s", err, tc.kind)
			}
		})
	}
	t.Run("unreadable", func(t *testing.T) {
		if os.Getuid() == 0 {
			t.Skip("running as root, which can read a mode-000 file")
		}
		p := write("secret", []byte("x"))
		os.Chmod(p, 0)
		if _, err := OpenCore(p); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("err = %v, want fs.ErrPermission", err)
		}
	})
	if coreBytes != nil {
		t.Run("core cut in memory", func(t *testing.T) {
			p := write("cut-mem", coreBytes[:len(coreBytes)/2])
			info, err := OpenCore(p)
			if err != nil {
				t.Fatal(err)
			}
			if !info.Truncated || info.MissingBytes != int64(len(coreBytes)-len(coreBytes)/2) {
				t.Errorf("truncated %v missing %d", info.Truncated, info.MissingBytes)
			}
			if !strings.Contains(info.Summary(), "truncated") {
				t.Errorf("summary does not warn: %s", info.Summary())
			}
		})
	}
}

func TestIdentify(t *testing.T) {
	exe := crashers.Build(t, "segv")
	if k, err := Identify(exe); err != nil || k != KindExecutable {
		t.Errorf("Identify(crasher) = %v, %v", k, err)
	}
	for _, name := range []string{"llvm_lldb_asi_nsexception.ips", "sentry_acrp_bruno.crash"} {
		p := filepath.Join(crashReportsDir, name)
		if _, err := os.Stat(p); err != nil {
			t.Logf("fixture %s not available: %v", p, err)
			continue
		}
		if k, err := Identify(p); err != nil || k != KindAppleReport {
			t.Errorf("Identify(%s) = %v, %v", name, k, err)
		}
	}
	if k, err := Identify(t.TempDir()); !errors.Is(err, ErrUnrecognizedFormat) {
		t.Errorf("Identify(dir) = %v, %v", k, err)
	}
	_, core := realCore(t, "segv")
	if k, err := Identify(core); err != nil || k != KindProcessCore {
		t.Errorf("Identify(core) = %v, %v", k, err)
	}
}
