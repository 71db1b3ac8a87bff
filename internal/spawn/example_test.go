package spawn_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

func ExampleRun() {
	var stdout, stderr strings.Builder
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv:    []string{"sh", "-c", "echo building; echo 'oops' >&2; exit 3"},
		Timeout: time.Minute,
		Stdout:  &stdout,
		Stderr:  &stderr, // Combined would get both, whole lines, in arrival order
	})
	if err != nil {
		fmt.Println(err) // could not start: a *StartError says what to fix
		return
	}
	fmt.Println(res.Exited, res.ExitCode, res.Signaled)
	fmt.Print(stdout.String(), stderr.String())
	// Output:
	// true 3 false
	// building
	// oops
}

func ExampleStartInteractive() {
	var out strings.Builder
	p, stdin, err := spawn.StartInteractive(context.Background(), spawn.Spec{
		Argv:   []string{"sh", "-c", `while read cmd; do echo "ran $cmd"; done`},
		Stdout: &out,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Fprintln(stdin, "bt")
	stdin.Close() // EOF: the REPL ends
	res, _ := p.Wait()
	fmt.Print(out.String())
	fmt.Println(res.Success())
	// Output:
	// ran bt
	// true
}
