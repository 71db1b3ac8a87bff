package dap

import (
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/toolpath"
)

// Adapter kinds.
const (
	KindLLDB = "lldb" // lldb-dap, or lldb-vscode[-N] before LLVM 18
	KindDlv  = "dlv"  // dlv dap, for Go programs
	KindGDB  = "gdb"  // gdb -i=dap, gdb 14 and later
)

// ErrAdapterNotFound: no usable adapter of the wanted kind is installed (none
// on PATH, or one without DAP support), or the kind is unknown.
var ErrAdapterNotFound = errors.New("no usable debug adapter")

// Adapter is a debug adapter program and how to talk to it.
type Adapter struct {
	Kind string
	Argv []string
	// DialBack: the adapter connects to a listener we opened first (dlv
	// --client-addr); otherwise it speaks DAP on stdin/stdout.
	DialBack bool
}

// FindAdapter locates an adapter of kind ("" picks by program: dlv for a Go
// binary, otherwise lldb, then gdb).
func FindAdapter(kind, program string) (Adapter, error) {
	if kind == "" {
		kind = KindLLDB
		if program != "" {
			if _, err := buildinfo.ReadFile(program); err == nil {
				kind = KindDlv
			}
		}
	}
	switch kind {
	case KindLLDB:
		if p := findLLDBDAP(); p != "" {
			return Adapter{Kind: KindLLDB, Argv: []string{p}}, nil
		}
		return Adapter{}, fmt.Errorf("%w: no lldb-dap or lldb-vscode[-N] in PATH (install lldb, e.g. Debian lldb-16)", ErrAdapterNotFound)
	case KindDlv:
		p, err := toolpath.Dlv.Find()
		if err != nil {
			return Adapter{}, fmt.Errorf("%w: dlv not in PATH or ~/go/bin (go install github.com/go-delve/delve/cmd/dlv@latest)", ErrAdapterNotFound)
		}
		return Adapter{Kind: KindDlv, Argv: []string{p, "dap"}, DialBack: true}, nil
	case KindGDB:
		p, err := toolpath.GDB.Find()
		if err != nil {
			return Adapter{}, fmt.Errorf("%w: gdb not in PATH", ErrAdapterNotFound)
		}
		return Adapter{Kind: KindGDB, Argv: []string{p, "-q", "-nx", "-i=dap"}}, nil
	}
	return Adapter{}, fmt.Errorf("%w: unknown adapter kind %q (want lldb, dlv or gdb)", ErrAdapterNotFound, kind)
}

func findLLDBDAP() string {
	p, _ := toolpath.LLDBDAP.Find()
	return p
}

var gdbVersionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^GNU gdb .*?(\d+)\.\d+`) })

// GDBSupportsDAP reports whether gdb's version output names version 14 or
// later, the first with the DAP interpreter.
func GDBSupportsDAP(versionOutput string) bool {
	m := gdbVersionRE().FindStringSubmatch(versionOutput)
	if m == nil {
		return false
	}
	major, _ := strconv.Atoi(m[1])
	return major >= 14
}

// CheckGDB runs gdb --version and reports whether it has -i=dap.
func CheckGDB(ctx context.Context, gdb string) error {
	var out strings.Builder
	res, err := spawn.Run(ctx, spawn.Spec{Argv: []string{gdb, "--version"}, Stdout: &out, Timeout: 10 * time.Second})
	if err != nil {
		return fmt.Errorf("running %s --version: %w", gdb, err)
	}
	if !res.Success() || !GDBSupportsDAP(out.String()) {
		first, _, _ := strings.Cut(out.String(), "\n")
		return fmt.Errorf("%w: %s has no DAP interpreter (needs gdb 14 or later): %s", ErrAdapterNotFound, gdb, first)
	}
	return nil
}

// started is a running adapter and the stream to it. p and log are nil for
// an in-memory adapter (tests).
type started struct {
	p      *spawn.Process
	stream io.ReadWriteCloser
	log    *os.File
}

// done is closed when the adapter process has ended; never for an
// in-memory adapter.
func (s *started) done() <-chan struct{} {
	if s.p == nil {
		return nil
	}
	return s.p.Done()
}

func (s *started) logHint() string {
	if s.log == nil {
		return ""
	}
	return " (adapter log: " + s.log.Name() + ")"
}

// stop ends the adapter: its stream, then its process group.
func (s *started) stop() {
	s.stream.Close()
	if s.p != nil {
		_, _ = s.p.Stop(time.Second)
	}
	if s.log != nil {
		s.log.Close()
	}
}

// startAdapter starts a and connects to it. Its stderr (and stdout, when
// DAP goes over a socket) goes to a log file in dir.
func startAdapter(ctx context.Context, a Adapter, dir string) (*started, error) {
	log, err := os.Create(filepath.Join(dir, a.Kind+"-adapter.log"))
	if err != nil {
		return nil, fmt.Errorf("creating adapter log: %v", err)
	}
	st, err := a.start(ctx, log)
	if err != nil {
		log.Close()
		return nil, err
	}
	st.log = log
	return st, nil
}

func (a Adapter) start(ctx context.Context, log *os.File) (*started, error) {
	if a.DialBack {
		return a.startDialBack(ctx, log)
	}
	pr, pw := io.Pipe()
	p, stdin, err := spawn.StartInteractive(context.WithoutCancel(ctx), spawn.Spec{
		Argv: a.Argv, Stdout: pw, Stderr: log,
	})
	if err != nil {
		return nil, fmt.Errorf("starting %s adapter: %w", a.Kind, err)
	}
	return &started{p: p, stream: stdioStream{pr, stdin}}, nil
}

// startDialBack opens a loopback listener first and lets the adapter connect
// to it (dlv dap --client-addr). Nothing has to be parsed from the adapter's
// output, and no other local process can connect in between: the adapter
// dials, we accept exactly one connection.
func (a Adapter) startDialBack(ctx context.Context, log *os.File) (*started, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening for the %s adapter: %v", a.Kind, err)
	}
	defer ln.Close()
	argv := append(append([]string{}, a.Argv...), "--client-addr="+ln.Addr().String())
	p, err := spawn.Start(context.WithoutCancel(ctx), spawn.Spec{Argv: argv, Stdout: log, Stderr: log})
	if err != nil {
		return nil, fmt.Errorf("starting %s adapter: %w", a.Kind, err)
	}
	type accepted struct {
		c   net.Conn
		err error
	}
	ch := make(chan accepted, 1)
	go func() {
		c, err := ln.Accept()
		ch <- accepted{c, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			_, _ = p.Stop(0)
			return nil, fmt.Errorf("accepting the %s adapter: %v", a.Kind, r.err)
		}
		return &started{p: p, stream: r.c}, nil
	case <-p.Done():
		res, _ := p.Wait()
		return nil, fmt.Errorf("%s adapter exited before connecting: %v (see %s)", a.Kind, res, log.Name())
	case <-ctx.Done():
		_, _ = p.Stop(0)
		return nil, fmt.Errorf("waiting for the %s adapter to connect: %w", a.Kind, ctx.Err())
	}
}

type stdioStream struct {
	r *io.PipeReader
	w *os.File
}

func (s stdioStream) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s stdioStream) Write(p []byte) (int, error) { return s.w.Write(p) }
func (s stdioStream) Close() error {
	s.r.Close()
	return s.w.Close()
}
