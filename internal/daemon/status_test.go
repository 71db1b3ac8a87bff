package daemon

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two daemons' id sources draw from the one count of their user: no
// number repeats across them; the count goes once no daemon is left.
func TestNumbersSharedAcrossDaemons(t *testing.T) {
	rt, err := os.MkdirTemp("/tmp", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	t.Setenv("XDG_RUNTIME_DIR", rt)
	a, b := Numbers("p"), Numbers("p")
	seen := map[int]bool{}
	for range 5 {
		for _, next := range []func() int{a, b} {
			n := next()
			if seen[n] {
				t.Fatalf("number %d drawn twice", n)
			}
			seen[n] = true
		}
	}
	if d := Numbers("dbg")(); d != 1 {
		t.Errorf("the first debug session's number is %d, want 1: each kind has its own count", d)
	}
	p, err := For("k")
	if err != nil {
		t.Fatal(err)
	}
	Leave(p)
	if left, _ := filepath.Glob(filepath.Join(p.Dir, "ids-*")); len(left) != 0 {
		t.Errorf("the counts stay with no daemon left: %v", left)
	}
}

// A daemon records the directory it serves beside its pid, and answers a
// status request with what it holds.
func TestStatusNamesTheDirectory(t *testing.T) {
	rt, err := os.MkdirTemp("/tmp", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	t.Setenv("XDG_RUNTIME_DIR", rt)
	p, err := For("k")
	if err != nil {
		t.Fatal(err)
	}
	ln, remove, err := Listen(p)
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	wd, _ := os.Getwd()
	if ReadPid(p) != os.Getpid() || ReadDir(p) != wd {
		t.Fatalf("pid file: pid %d dir %q, want %d %q", ReadPid(p), ReadDir(p), os.Getpid(), wd)
	}
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		verb, _, err := ReadRequest(bufio.NewReader(c))
		if err == nil && IsStatus(verb) {
			s := Self(p)
			s.Processes = append(s.Processes, Held{ID: "p3", What: "sleep 60", Running: true})
			AnswerStatus(c, s)
		}
	}()
	s, err := AskStatus(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if s.Dir != wd || s.Pid != os.Getpid() || s.Started.IsZero() || s.Holds() != "1 process (1 running): p3" {
		t.Errorf("status: %+v, holds %q", s, s.Holds())
	}
	if all, err := All(); err != nil || len(all) != 1 || all[0].Socket != p.Socket {
		t.Errorf("All: %v %v", all, err)
	}
	if h := (Status{}).Holds(); !strings.Contains(h, "nothing") {
		t.Errorf("an empty daemon holds %q", h)
	}
}
