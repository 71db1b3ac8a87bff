package daemon

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// PingWithin is how long a daemon has to answer a ping. A running daemon
// answers at once; one that accepts connections but says nothing is not
// responding: the kernel accepts on a stopped (SIGSTOP) or stuck
// process's socket, so a connection alone proves nothing. A variable for
// tests.
var PingWithin = 5 * time.Second

// ErrNotResponding says the daemon accepted a connection but did not
// answer within its bound.
var ErrNotResponding = errors.New("the daemon does not answer")

// pingLine is a request of the daemon's own (see IsRequest). The daemon
// answers it with one line, as any request it does not know ("unknown
// request"): any answer is a sign of life.
const pingLine = "ping\n"

// Ping asks the daemon of p for a sign of life within PingWithin. It
// returns ErrNotRunning (wrapped) when nothing listens, and NotResponding's
// error when the daemon accepts but does not answer.
func Ping(ctx context.Context, p Paths) error {
	conn, err := Dial(ctx, p)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(PingWithin))
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	if _, err := io.WriteString(conn, pingLine); err != nil {
		return NotResponding(p, err)
	}
	if _, err := bufio.NewReader(conn).ReadSlice('\n'); err != nil {
		return NotResponding(p, err)
	}
	return nil
}

// NotResponding is the error of the daemon of p that accepted a
// connection and then did not answer (why: the read's error), naming its
// pid, whether it is stopped, and what to do.
func NotResponding(p Paths, why error) error {
	pid := ReadPid(p)
	state := "stuck, or too busy to answer"
	if stopped(pid) {
		state = "stopped (SIGSTOP, or a debugger holds it)"
	}
	return fmt.Errorf("%w: the daemon for this directory (pid %d) accepts connections but did not answer within %v: %s (%v); `kill -CONT %d` resumes a stopped one, `kill -9 %d` ends it and the next call starts another",
		ErrNotResponding, pid, PingWithin, state, why, pid, pid)
}

// stopped reports a process in the stopped or traced state (Linux's
// /proc/PID/stat; false where it cannot be read).
func stopped(pid int) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The name may hold spaces and parentheses: the state follows the last ')'.
	i := strings.LastIndex(string(b), ") ")
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] == 'T' || b[i+2] == 't'
}
