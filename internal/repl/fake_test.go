package repl

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/triage-dev/triage/internal/testutil"
)

// The test binary doubles as a fake engine when _REPL_FAKE_ENGINE is set: a
// line-oriented REPL whose commands inject the faults real engines have.
func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv("_REPL_FAKE_ENGINE"); ok {
		fakeEngine(mode)
		os.Exit(0)
	}
	os.Exit(testutil.Main(m))
}

func fakeEngine(mode string) {
	sigint := make(chan os.Signal, 1)
	signal.Notify(sigint, syscall.SIGINT)
	if mode == "startup-hang" {
		select {}
	}
	fmt.Println("Fake Engine 1.0 (banner)")
	echo := mode == "echo"
	in := bufio.NewScanner(os.Stdin)
	n := 0
	for {
		fmt.Print("(fake) ")
		if !in.Scan() {
			return
		}
		line := in.Text()
		if echo {
			fmt.Println(line)
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch verb {
		case "p":
			a, b, _ := strings.Cut(arg, "+")
			x, _ := strconv.ParseInt(a, 10, 64)
			y, _ := strconv.ParseInt(b, 10, 64)
			n++
			fmt.Printf("$%d = %d\n", n, x+y)
		case "echo":
			fmt.Println(arg)
		case "stderr":
			fmt.Fprintln(os.Stderr, arg)
		case "hang":
			<-sigint
			fmt.Println("Quit")
		case "hang-hard":
			signal.Ignore(syscall.SIGINT)
			select {}
		case "die":
			fmt.Println("dying")
			os.Exit(3)
		case "kill":
			fmt.Println("about to be killed")
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		case "ansi":
			fmt.Println("\x1b[1;31mred\x1b[0m plain \x1b]0;title\x07done")
		case "hostile":
			// Things that look like an end of output but are not.
			fmt.Println("(fake) ")
			fmt.Println("(fake) $1 = 123457")
			fmt.Println("p 1+2")
			fmt.Print("no newline at the end")
			fmt.Println()
		case "flood":
			k, _ := strconv.Atoi(arg)
			for i := range k {
				fmt.Printf("line %d\n", i)
			}
		case "":
		default:
			fmt.Printf("unknown command %q\n", verb)
		}
	}
}

func fakeConfig(t *testing.T, mode string) Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		Argv:   []string{exe, "-test.run=^$"},
		Env:    map[string]string{"_REPL_FAKE_ENGINE": mode},
		Prompt: regexpMust(`\(fake\) `),
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
