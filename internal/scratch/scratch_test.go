package scratch

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The test binary doubles as an owner process when _SCRATCH_OWNER names a
// root: it makes a directory there, prints its path and waits to be killed.
func TestMain(m *testing.M) {
	if root := os.Getenv("_SCRATCH_OWNER"); root != "" {
		o, err := Dir(root, "owner")
		if err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString(o.Path + "\n")
		select {}
	}
	os.Exit(m.Run())
}

func TestSweepRemovesOnlyAbandonedDirectories(t *testing.T) {
	root := t.TempDir()
	mine, err := Dir(root, "live")
	if err != nil {
		t.Fatal(err)
	}
	// An owner killed outright: its lock dies with it.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "_SCRATCH_OWNER="+root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	dead := strings.TrimSpace(line)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// Not made by Dir: no owner file.
	foreign := filepath.Join(root, Prefix+"foreign")
	if err := os.Mkdir(foreign, 0o755); err != nil {
		t.Fatal(err)
	}

	removed, err := Sweep(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0] != dead {
		t.Errorf("Sweep removed %v, want only the dead owner's %s", removed, dead)
	}
	for _, keep := range []string{mine.Path, foreign} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s: %v (should be kept)", keep, err)
		}
	}
	if err := mine.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mine.Path); !os.IsNotExist(err) {
		t.Errorf("after Remove: %v", err)
	}
	if err := mine.Remove(); err != nil {
		t.Errorf("second Remove: %v", err)
	}
}
