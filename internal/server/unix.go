package server

import (
	"bufio"
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/daemon"
	"github.com/triage-dev/triage/internal/tick"
)

// UnixOptions configure the CLI daemon's listener.
type UnixOptions struct {
	// Idle ends the server after this long with no request, no client
	// connected and nothing alive (0: never).
	Idle time.Duration
	// Busy reports state that must outlive idleness: a background
	// process, a debug or dump session.
	Busy func() bool
	// Status, when set, answers a status request (`triage daemon status`)
	// with what the daemon holds.
	Status func() daemon.Status
}

// ServeUnix serves MCP on ln, one session per connection (newline-delimited
// JSON-RPC, as over stdio), until ctx is done or the server has been idle
// for o.Idle. It is the CLI's daemon: every `triage call` is a connection,
// and `triage ui` asks it over the socket to serve the web page on a
// loopback address (see pageServer); a request of the page counts as use,
// and an open page (a live stream) keeps the daemon from idling out.
func (s *Server) ServeUnix(ctx context.Context, ln net.Listener, o UnixOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		conns    sync.WaitGroup
		open     atomic.Int64
		lastUsed atomic.Int64 // unix nanoseconds of the last request or connection
	)
	lastUsed.Store(time.Now().UnixNano())
	touch := func() { lastUsed.Store(time.Now().UnixNano()) }
	page := &pageServer{s: s, ctx: ctx, touch: touch, wg: &conns}
	s.mcp.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			lastUsed.Store(time.Now().UnixNano())
			return next(ctx, method, req)
		}
	})
	if o.Idle > 0 {
		t := tick.Start(ctx, min(o.Idle/4, time.Minute), func() {
			idle := time.Since(time.Unix(0, lastUsed.Load()))
			if idle >= o.Idle && open.Load() == 0 && (o.Busy == nil || !o.Busy()) && s.UI.Streams() == 0 {
				cancel()
			}
		})
		defer t.Stop()
	}
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	defer conns.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		open.Add(1)
		lastUsed.Store(time.Now().UnixNano())
		conns.Add(1)
		go func() {
			defer conns.Done()
			defer open.Add(-1)
			s.serveConn(ctx, c, page, o.Status)
			lastUsed.Store(time.Now().UnixNano())
		}()
	}
}

// serveConn runs one client's session on c until either side ends it, or
// answers the daemon's own request (the web page, its status) when that is
// what c carries.
func (s *Server) serveConn(ctx context.Context, c net.Conn, page *pageServer, status func() daemon.Status) {
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() }) // a client that never writes
	defer stop()
	r := bufio.NewReader(c)
	first, err := r.Peek(1)
	if err != nil {
		return // a liveness probe: dialled and closed
	}
	if daemon.IsRequest(first[0]) {
		verb, addr, err := daemon.ReadRequest(r)
		if err == nil && daemon.IsStatus(verb) && status != nil {
			daemon.AnswerStatus(c, status()) // not a use: asking keeps no daemon alive
			return
		}
		if err == nil {
			addr, err = daemon.PageRequest(verb, addr)
		}
		url := ""
		if err == nil {
			url, err = page.login(addr)
		}
		daemon.AnswerPage(c, url, err)
		return
	}
	ss, err := s.mcp.Connect(ctx, &lineTransport{r: r, w: c}, nil)
	if err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			ss.Close()
		case <-done:
		}
	}()
	ss.Wait()
	close(done)
}
