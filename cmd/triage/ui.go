package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/triage-dev/triage/internal/daemon"
	"github.com/triage-dev/triage/internal/identity"
	"github.com/triage-dev/triage/internal/server"
	"github.com/triage-dev/triage/internal/spawn"
)

// cmdUI asks the CLI's daemon of this directory and configuration
// (started if none is up, as for a stateful `triage call`) to serve the
// web page on a loopback address, and prints (and opens) the one-time
// login URL it answers: the page shows the daemon's state, the debug and
// dump sessions and background processes of `triage call` included. The
// daemon serves it until `triage daemon stop` (or it idles out, which an
// open page prevents). With TRIAGE_DAEMON=off the page is served by this
// process until Ctrl-C, over the same store but without the daemon's
// sessions.
func cmdUI(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ui", flag.ContinueOnError)
	var g globals
	g.register(fs)
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to serve the page on (port 0: any free port)")
	noBrowser := fs.Bool("no-browser", false, "only print the login URL; do not open a browser")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if err := server.CheckAddr(*addr, ""); err != nil {
		return usagef("--addr: %v (triage ui serves loopback only; use triage serve --http with a token otherwise)", err)
	}
	if daemonOff() {
		return uiInProcess(ctx, &g, *addr, *noBrowser, stdout, stderr)
	}
	p, err := g.daemonPaths()
	if err != nil {
		return err
	}
	url, note, err := g.pageURL(ctx, p, *addr)
	fmt.Fprint(stderr, note)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "triage web page: %s\n(the URL logs in once; the CLI's daemon, pid %d, serves the page until `triage daemon stop`)\n", url, daemon.ReadPid(p))
	openBrowser(url, *noBrowser, stderr)
	return nil
}

// uiInProcess serves the page from this process until ctx ends
// (TRIAGE_DAEMON=off).
func uiInProcess(ctx context.Context, g *globals, addr string, noBrowser bool, stdout, stderr io.Writer) error {
	srv, svc, err := g.newServer(stderr, false)
	if err != nil {
		return err
	}
	defer svc.Close()
	// The listener serves MCP beside the page; it is the page's alone, so
	// MCP gets a token no one is told: on loopback, every local user could
	// otherwise run programs as this one through it.
	return srv.ServeHTTP(ctx, server.HTTPOptions{Addr: addr, Tokens: []string{rand.Text()}}, func(bound string) {
		url := srv.LoginURL("http://"+bound, identity.Server)
		fmt.Fprintf(stdout, "triage web page: %s\n(the URL logs in once; Ctrl-C stops the page)\n", url)
		openBrowser(url, noBrowser, stderr)
	})
}

// openBrowser opens url in the user's browser, if there is one to use
// and noBrowser is not set.
func openBrowser(url string, noBrowser bool, stderr io.Writer) {
	if noBrowser {
		return
	}
	if opener := browser(); opener != nil {
		if _, err := spawn.Detach(append(opener, url), "", nil, os.DevNull); err != nil {
			fmt.Fprintf(stderr, "triage: could not open a browser (%v): open the URL above\n", err)
		}
	}
}

// browser returns the command that opens a URL in the user's browser, or
// nil when there is none to use: $BROWSER, else xdg-open under a
// graphical session, else macOS's open.
func browser() []string {
	if b := strings.Fields(os.Getenv("BROWSER")); len(b) > 0 {
		return b
	}
	if runtime.GOOS == "darwin" {
		return []string{"open"}
	}
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return nil
	}
	if p, err := exec.LookPath("xdg-open"); err == nil {
		return []string{p}
	}
	return nil
}
