package e2e

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkPageSize weighs what the web page adds to the binary: triage
// built as usual against triage built with internal/webui replaced by a
// stub that keeps its API and serves nothing (testdata/nopage, through
// go build -overlay: the page's code, its embedded assets and whatever
// only they pull in go), the same flags for both (page-MB, target
// 1.5 MB). Beside it, the embedded assets' own bytes (assets-KB) and the
// binary's size (binary-MB).
func BenchmarkPageSize(b *testing.B) {
	root, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	overlay := writeOverlay(b, root)
	var with, without int64
	for b.Loop() {
		with = buildSize(b, root)
		without = buildSize(b, root, "-overlay", overlay)
	}
	var assets int64
	filepath.WalkDir(filepath.Join(root, "internal", "webui", "assets"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				assets += fi.Size()
			}
		}
		return nil
	})
	b.ReportMetric(float64(with-without)/1e6, "page-MB")
	b.ReportMetric(float64(assets)/1e3, "assets-KB")
	b.ReportMetric(float64(with)/1e6, "binary-MB")
	b.ReportMetric(0, "ns/op")
}

// writeOverlay maps internal/webui's source files to the stub (the first)
// and to nothing (the others).
func writeOverlay(b *testing.B, root string) string {
	files, _ := filepath.Glob(filepath.Join(root, "internal", "webui", "*.go"))
	replace := map[string]string{}
	stub := filepath.Join(root, "e2e", "testdata", "nopage", "webui.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		replace[f] = ""
		if len(replace) == 1 {
			replace[f] = stub
		}
	}
	raw, _ := json.Marshal(map[string]any{"Replace": replace})
	p := filepath.Join(b.TempDir(), "overlay.json")
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// buildSize builds cmd/triage with the given flags and returns its size.
func buildSize(b *testing.B, root string, flags ...string) int64 {
	out := filepath.Join(b.TempDir(), "triage")
	cmd := exec.Command("go", append(append([]string{"build"}, flags...), "-o", out, "./cmd/triage")...)
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build %v: %v\n%s", flags, err, msg)
	}
	fi, err := os.Stat(out)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}
