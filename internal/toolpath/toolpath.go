// Package toolpath finds the debuggers and dump engines triage drives (gdb,
// lldb, lldb-dap, dlv, crash, drgn; valgrind). It is the one place that decides which
// program is used, for the debugger backends, the first-look backtrace, the
// hang stacks, the dump engines and the doctor alike. LLVM's tools carry a
// version in their names on some systems (lldb-16, lldb-dap-18): the plain
// name is preferred, then the newest version.
package toolpath

import "strconv"

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
