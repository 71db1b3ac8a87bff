package hang

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestDebuggerOutputKeepsItsOrder: what a batch debugger prints on stdout
// (the stacks) and on stderr (its warnings and attach messages) is kept in
// the order it wrote them, with no line cut by a line of the other stream,
// so a hung run's stored output and its line count are the same from one
// capture to the next. The "debugger" here writes half a frame line to
// stdout, a warning to stderr, then the rest of the line, many times.
func TestDebuggerOutputKeepsItsOrder(t *testing.T) {
	script := `for i in $(seq 1 50); do printf "#$i  0x0 in f () "; echo "warning: $i" >&2; echo "at a.c:$i"; done`
	var want strings.Builder
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&want, "#%d  0x0 in f () warning: %d\nat a.c:%d\n", i, i, i)
	}
	for run := 0; run < 5; run++ {
		_, got, err := runDebugger(context.Background(), []string{"sh", "-c", script})
		if err != nil {
			t.Fatal(err)
		}
		if got != want.String() {
			t.Fatalf("run %d: the debugger's output is not as it wrote it:\n%s", run, got)
		}
	}
}
