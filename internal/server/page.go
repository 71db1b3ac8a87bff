package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/identity"
)

// pageServer is the CLI daemon's loopback HTTP listener for the web page:
// started by the first `triage ui` that asks for it over the daemon's
// socket, it serves /ui/ (nothing else: the daemon's MCP stays on its
// socket) over the daemon's own services, so the page shows the debug and
// dump sessions and background processes of `triage call`, and it ends
// with the daemon.
type pageServer struct {
	s     *Server
	ctx   context.Context // the daemon's: the listener ends with it
	touch func()          // a page request is activity: the daemon is not idle
	wg    *sync.WaitGroup // the daemon waits for the listener to end

	mu   sync.Mutex
	addr string // the bound address, "" until the first request; guarded by mu
}

// login returns a one-time login URL of the page served on addr (a
// loopback host:port; port 0 for any), starting the listener on the first
// request; a page already served stays where it is.
func (p *pageServer) login(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("page address %q: %v (use host:port, e.g. 127.0.0.1:0)", addr, err)
	}
	if !isLoopbackHost(host) {
		return "", fmt.Errorf("page address %q is not loopback: the daemon serves the page to this machine only (triage serve --http with a token serves others)", addr)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.addr == "" {
		if err := p.listen(addr); err != nil {
			return "", err
		}
	} else if _, bound, _ := net.SplitHostPort(p.addr); port != "0" && port != bound {
		return "", fmt.Errorf("the daemon already serves the page on %s, not %s: use that address, or `triage daemon stop` first", p.addr, addr)
	}
	return p.s.LoginURL("http://"+p.addr, identity.Server), nil
}

// listen starts the listener on addr; it is shut down when the daemon's
// context ends, its live streams first.
func (p *pageServer) listen(addr string) error {
	if p.ctx.Err() != nil {
		return errors.New("the daemon is ending")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s for the page: %w", addr, err)
	}
	srv := &http.Server{Handler: p.handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	srv.RegisterOnShutdown(p.s.UI.Close)
	p.addr = ln.Addr().String()
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		srv.Serve(ln)
	}()
	go func() {
		defer p.wg.Done()
		<-p.ctx.Done()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), 5*time.Second)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			srv.Close()
		}
	}()
	return nil
}

// handler serves the page under /ui/ with the Origin rule of the MCP
// endpoint, and "/" sends a browser there. The login-code endpoint is not
// served: with no token to ask for, anyone on this machine could mint a
// login; the codes come over the daemon's socket, which is the user's own.
func (p *pageServer) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/ui/", guard(nil, nil, nil, noBody(p.s.UI)))
	mux.Handle("GET /{$}", http.RedirectHandler("/ui/", http.StatusSeeOther))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.touch()
		mux.ServeHTTP(w, r)
	})
}
