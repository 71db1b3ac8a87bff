package verdict_test

import (
	"context"
	"fmt"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/verdict"
)

// A run that exits 0 but printed a panic is a crash, not a success.
func ExampleClassify() {
	scan := verdict.NewScanner()
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv:     []string{"sh", "-c", "echo 'panic: boom'; exit 0"},
		Combined: scan, // the Scanner sees every line as it streams by
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	v := verdict.Classify(verdict.Input{Result: res, Scan: scan, OutputID: "out-1"})
	fmt.Println(v.Line)
	fmt.Println(v.Status, v.CrashType)
	for _, h := range v.Hints {
		fmt.Println(h.Tool)
	}
	// Output:
	// CRASHED (exit 0, but output shows: Go panic) — panic: boom
	// crash panic
	// debug_attach
}
