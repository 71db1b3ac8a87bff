package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/triage-dev/triage/internal/identity"
	"github.com/triage-dev/triage/internal/server"
	"github.com/triage-dev/triage/internal/spawn"
)

// cmdUI serves the web page on a loopback address and prints (and opens)
// a one-time login URL. In this increment the page is served by a server
// of its own, in this process, over the same store as every other triage
// of this configuration (the CLI's daemon included): its runs appear live
// (the page polls the store's version), its background processes and
// debug and dump sessions, which live in the daemon, do not.
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
	srv, svc, err := g.newServer(stderr, false)
	if err != nil {
		return err
	}
	defer svc.Close()
	return srv.ServeHTTP(ctx, server.HTTPOptions{Addr: *addr}, func(bound string) {
		url := srv.LoginURL("http://"+bound, identity.Server)
		fmt.Fprintf(stdout, "triage web page: %s\n(the URL logs in once; Ctrl-C stops the page)\n", url)
		if !*noBrowser {
			if opener := browser(); opener != nil {
				if _, err := spawn.Detach(append(opener, url), "", nil, os.DevNull); err != nil {
					fmt.Fprintf(stderr, "triage: could not open a browser (%v): open the URL above\n", err)
				}
			}
		}
	})
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
