package doctor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// With gcc installed, the doctor lists its four sanitizer runtimes, each
// found by gcc's own -print-file-name, with what it enables.
func TestDoctorListsGCCSanitizerRuntimes(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not installed")
	}
	r := &Report{Tools: inspectSanitizers(context.Background(), time.Minute)}
	text := r.Text()
	for _, want := range []string{"  libasan ", "  liblsan ", "  libubsan ", "  libtsan "} {
		if !strings.Contains(text, want) {
			t.Errorf("no %s:\n%s", want, text)
		}
	}
	for _, tool := range r.Tools[:4] {
		if tool.Status == StatusOK && (!filepath.IsAbs(tool.Path) || !strings.HasPrefix(tool.Version, "gcc ")) {
			t.Errorf("%+v", tool)
		}
	}
	if r.Tools[0].Status == StatusOK && !strings.Contains(text, ", for check: memory (AddressSanitizer builds)  (/") {
		t.Errorf("the found libasan does not say what it enables:\n%s", text)
	}
}

// clang's runtimes are found in either layout of its runtime directory.
func TestClangRuntimeLayouts(t *testing.T) {
	root := t.TempDir()
	perTarget := filepath.Join(root, "lib", "x86_64-unknown-linux-gnu")
	os.MkdirAll(perTarget, 0o755)
	os.WriteFile(filepath.Join(perTarget, "libclang_rt.asan.a"), nil, 0o644)
	if got := clangRuntime(perTarget, "asan"); got != filepath.Join(perTarget, "libclang_rt.asan.a") {
		t.Errorf("per-target layout: %q", got)
	}
	if got := clangRuntime(perTarget, "tsan"); got != "" {
		t.Errorf("a missing runtime found: %q", got)
	}
	if got := clangRuntime("", "asan"); got != "" {
		t.Errorf("no runtime directory: %q", got)
	}
}
