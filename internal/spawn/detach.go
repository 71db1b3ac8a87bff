package spawn

import (
	"os"
	"os/exec"
	"syscall"
)

// Detached is a program started to outlive the call that started it: the
// CLI's daemon. It is the one kind of child triage does not supervise; it
// ends itself (idle, or told to stop).
type Detached struct {
	Pid int
	// Exited is closed when the program ends while this process still
	// waits for it (it is reaped here then, never left a zombie).
	Exited <-chan struct{}
}

// Detach starts argv in a new session (its own process group, no
// controlling terminal, no death signal tied to this process), with stdin
// and stdout on /dev/null and stderr appended to logPath.
func Detach(argv []string, dir string, env []string, logPath string) (*Detached, error) {
	if len(argv) == 0 {
		return nil, &StartError{Kind: KindEmptyArgv, Detail: "no program given"}
	}
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, &StartError{Program: argv[0], Detail: "opening its log " + logPath, Err: err}
	}
	defer log.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stderr = dir, env, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, &StartError{Program: argv[0], Detail: "starting it detached", Err: err}
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	return &Detached{Pid: cmd.Process.Pid, Exited: exited}, nil
}
