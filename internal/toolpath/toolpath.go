// Package toolpath finds the external programs triage drives whose names
// carry a version on some systems: LLVM's lldb, lldb-dap and lldb-vscode are
// installed by distributions as lldb-16, lldb-dap-18 and so on. It is the
// one place that decides which of them is used, for the debugger backends,
// the first-look backtrace, the dump engines and the doctor alike.
package toolpath

import (
	"os/exec"
	"strconv"
)

// Newest and oldest LLVM major versions looked for.
const (
	newestLLVM = 30
	oldestLLVM = 10
)

// Names lists the names LLVM tries for base, in order of preference: the
// plain name (the distribution's default), then base-N from the newest N.
func Names(base ...string) []string {
	names := append([]string(nil), base...)
	for v := newestLLVM; v >= oldestLLVM; v-- {
		for _, b := range base {
			names = append(names, b+"-"+strconv.Itoa(v))
		}
	}
	return names
}

// LLVM returns the path of the first of Names(base...) found in PATH, and
// false when none is.
func LLVM(base ...string) (string, bool) {
	for _, n := range Names(base...) {
		if p, err := exec.LookPath(n); err == nil {
			return p, true
		}
	}
	return "", false
}
