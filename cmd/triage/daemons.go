package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/background"
	"github.com/triage-dev/triage/internal/daemon"
	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/services"
)

// asDaemon readies this process to be the CLI's daemon of p: its ids
// (p7, dbg-3) are drawn from the count its user's daemons share, so that
// one id never names two things, and a process its stop ends says so in
// its verdict; the returned function answers a status
// request with what it holds.
func asDaemon(p daemon.Paths, svc *services.Set) func() daemon.Status {
	background.Numbers = daemon.Numbers("p")
	background.Ending = "as the daemon stopped"
	debugger.Numbers = daemon.Numbers("dbg")
	return func() daemon.Status {
		ctx := context.Background() // the server's identity: every caller's
		s := daemon.Self(p)
		for _, j := range svc.JobList(ctx) {
			s.Processes = append(s.Processes, daemon.Held{ID: j.ID, What: strings.Join(j.Argv, " "), Running: j.Outcome() == nil})
		}
		for _, d := range svc.DebugSessions(ctx) {
			s.Debug = append(s.Debug, daemon.Held{ID: d.ID, What: d.Target})
		}
		for _, d := range svc.DumpSessions(ctx) {
			s.Dumps = append(s.Dumps, daemon.Held{ID: d.ID, What: d.Target.Core + d.Target.Vmcore})
		}
		return s
	}
}

// seen is one daemon as `daemon status --all` finds it.
type seen struct {
	p      daemon.Paths
	status daemon.Status
	err    error // ErrNotRunning: its files are left (killed); else not answering
}

// survey asks every daemon of the user what it serves and holds, all at
// once, each within ctx and daemon.PingWithin.
func survey(ctx context.Context) ([]seen, error) {
	all, err := daemon.All()
	if err != nil {
		return nil, err
	}
	out := make([]seen, len(all))
	var wg sync.WaitGroup
	for i, p := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = seen{p: p}
			if daemon.Stale(p) {
				out[i].err = daemon.ErrNotRunning
				out[i].status = daemon.Status{Pid: daemon.ReadPid(p), Dir: daemon.ReadDir(p)}
				return
			}
			out[i].status, out[i].err = daemon.AskStatus(ctx, p)
			if out[i].err != nil && out[i].status.Pid == 0 {
				out[i].status = daemon.Status{Pid: daemon.ReadPid(p), Dir: daemon.ReadDir(p)}
			}
		}()
	}
	wg.Wait()
	return out, nil
}

// line describes one daemon in a line: its directory, pid, uptime and what
// it holds.
func (s seen) line() string {
	dir := s.status.Dir
	if dir == "" {
		dir = "(directory unknown)"
	}
	switch {
	case errors.Is(s.err, daemon.ErrNotRunning):
		return fmt.Sprintf("%s  pid %d  gone without cleaning up (killed?): the next call there replaces it", dir, s.status.Pid)
	case errors.Is(s.err, daemon.ErrNoStatus):
		return fmt.Sprintf("%s  pid %d  running an older triage, which does not say what it holds", dir, s.status.Pid)
	case s.err != nil:
		return fmt.Sprintf("%s  pid %d  not responding: %v", dir, s.status.Pid, s.err)
	}
	return fmt.Sprintf("%s  pid %d  up %s  %s", dir, s.status.Pid, uptime(s.status.Started), s.status.Holds())
}

// uptime is the time since start, to the second ("?" when unknown).
func uptime(start time.Time) string {
	if start.IsZero() {
		return "?"
	}
	return time.Since(start).Round(time.Second).String()
}

// statusAll prints every daemon of the user (`daemon status --all`),
// marking the one of this directory and configuration (mine).
func statusAll(ctx context.Context, mine daemon.Paths, stdout io.Writer) (int, error) {
	all, err := survey(ctx)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(stdout, "DAEMONS: %d\n", len(all))
	for _, s := range all {
		here := ""
		if s.p.Socket == mine.Socket {
			here = "  (this directory and configuration)"
		}
		fmt.Fprintf(stdout, "%s%s\n", s.line(), here)
	}
	if len(all) == 0 {
		fmt.Fprintln(stdout, "none: the first call of a tool that keeps state (process_*, debug_*, dump_*, session_*) starts the daemon of its directory")
	}
	return exitOK, nil
}

// stopAll stops every daemon of the user (`daemon stop --all`), each
// ending its children, and clears the files of those gone without
// cleaning up.
func stopAll(ctx context.Context, stdout io.Writer) (int, error) {
	all, err := daemon.All()
	if err != nil {
		return 0, err
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	stopped := 0
	for _, p := range all {
		pid := daemon.ReadPid(p)
		if daemon.Stale(p) {
			daemon.Clear(p)
			continue
		}
		if pid == 0 {
			continue // being started: it has no pid file yet
		}
		stopped++
		wg.Add(1)
		go func() {
			defer wg.Done()
			var b strings.Builder
			dir := daemon.ReadDir(p) // gone with the pid file once it stops
			err := stopDaemon(ctx, p, pid, &b)
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(stdout, "%s, serving %s\n", strings.TrimSpace(b.String()), dir)
			errs = append(errs, err)
		}()
	}
	wg.Wait()
	if stopped == 0 {
		fmt.Fprintln(stdout, "no daemon running")
	}
	return exitOK, errors.Join(errs...)
}

// othersNote names the other daemons of the user that hold something, for
// a listing made through the daemon of dir (mine), so that a process
// started in another directory is pointed to rather than unseen; "" when
// there are none. Each is given a second to answer: a listing is not held
// up by a stopped daemon.
func othersNote(ctx context.Context, mine daemon.Paths, dir string) string {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	all, _ := survey(ctx)
	var b strings.Builder
	for _, s := range all {
		if s.p.Socket == mine.Socket || s.err == nil && s.status.Holds() == "nothing held" || errors.Is(s.err, daemon.ErrNotRunning) {
			continue
		}
		fmt.Fprintf(&b, "  %s\n", s.line())
	}
	head := fmt.Sprintf("served by the daemon of %s (this directory and configuration)", dir)
	if b.Len() == 0 {
		return head + "\n"
	}
	return head + "; other daemons of yours hold (`triage daemon status --all`; run the call in their directory):\n" + b.String()
}

// holderNote says which other daemon of the user holds id (ids are
// unique across them: daemon.NextNumber), for a call refused by the daemon
// of this directory (mine); "" when none does.
func holderNote(ctx context.Context, mine daemon.Paths, id string) string {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	all, _ := survey(ctx)
	for _, s := range all {
		if s.p.Socket == mine.Socket || s.err != nil {
			continue
		}
		for _, h := range slices.Concat(s.status.Processes, s.status.Debug, s.status.Dumps) {
			if h.ID == id {
				return fmt.Sprintf("%s is held by the daemon of %s (pid %d), not this directory's: run the call there (cd %s)\n", id, s.status.Dir, s.status.Pid, shQuote(s.status.Dir))
			}
		}
	}
	return ""
}

// shQuote quotes s for a POSIX shell when it needs it.
func shQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+,=@%:") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// cwd is the working directory, "" when unknown.
func cwd() string {
	wd, _ := os.Getwd()
	return wd
}
