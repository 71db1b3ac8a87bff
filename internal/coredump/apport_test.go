package coredump

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// apportWithCore writes an apport report carrying payload the way apport
// does: gzip, cut into blocks, one base64 block per continuation line.
func apportWithCore(t *testing.T, payload []byte, mangle func([]string) []string) string {
	t.Helper()
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed)
	zw.Name = "CoreDump"
	zw.Write(payload)
	zw.Close()
	var lines []string
	for b := z.Bytes(); len(b) > 0; {
		n := min(len(b), 777)
		lines = append(lines, " "+base64.StdEncoding.EncodeToString(b[:n]))
		b = b[n:]
	}
	if mangle != nil {
		lines = mangle(lines)
	}
	report := strings.Replace(apportReport, "%PID%", "7", 1)
	report = report[:strings.Index(report, "CoreDump:")] + "CoreDump: base64\n" + strings.Join(lines, "\n") + "\nUname: Linux 6.1.0\n"
	p := filepath.Join(t.TempDir(), "_usr_bin_prog.0.crash")
	if err := os.WriteFile(p, []byte(report), 0o640); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExtractApportCore(t *testing.T) {
	var core []byte
	t.Run("real core", func(t *testing.T) {
		_, path := realCore(t, "segv")
		var err error
		if core, err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
		dest := filepath.Join(t.TempDir(), "core")
		if err := ExtractApportCore(apportWithCore(t, core, nil), dest); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(dest)
		if !bytes.Equal(got, core) {
			t.Fatalf("extracted %d bytes, want the %d-byte core", len(got), len(core))
		}
		if info, err := OpenCore(dest); err != nil || info.SignalName != "SIGSEGV" {
			t.Errorf("extracted core: %v, %v", info, err)
		}
	})
	payload := make([]byte, 8<<10) // incompressible, so it spans many blocks
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range payload {
		payload[i] = byte(rng.Uint32())
	}
	for _, tc := range []struct {
		name   string
		mangle func([]string) []string
		want   error
	}{
		{"last block missing", func(l []string) []string { return l[:len(l)-1] }, ErrTruncated},
		{"bad base64", func(l []string) []string { l[1] = " !!!not base64!!!"; return l }, ErrCorrupt},
		{"no blocks", func([]string) []string { return nil }, ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ExtractApportCore(apportWithCore(t, payload, tc.mangle), filepath.Join(t.TempDir(), "core"))
			if !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
	t.Run("no CoreDump field", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "r.crash")
		os.WriteFile(p, []byte("ProblemType: Crash\nExecutablePath: /bin/x\n"), 0o644)
		if err := ExtractApportCore(p, filepath.Join(t.TempDir(), "core")); !errors.Is(err, ErrNoCore) {
			t.Errorf("err = %v, want ErrNoCore", err)
		}
	})
	t.Run("CoreDump not base64", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "r.crash")
		os.WriteFile(p, []byte("ProblemType: Crash\nCoreDump: gzip\n"), 0o644)
		if err := ExtractApportCore(p, filepath.Join(t.TempDir(), "core")); !errors.Is(err, ErrCorrupt) {
			t.Errorf("err = %v, want ErrCorrupt", err)
		}
	})
}
