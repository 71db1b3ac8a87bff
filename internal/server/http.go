package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	// Addr is host:port to listen on; the host must be given (":8080" would bind
	// every interface and is refused).
	Addr string
	// Token, when set, must arrive as "Authorization: Bearer TOKEN". It is
	// required when Addr is not a loopback address.
	Token string
	// MaxBodyBytes bounds a request body (default 8 MiB).
	MaxBodyBytes int64
	// HeaderTimeout bounds how long a client may take to send its request
	// headers (default 10 s): slow-loris clients are cut off.
	HeaderTimeout time.Duration
}

// CheckAddr validates a listen address under the token rule.
func CheckAddr(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %v (use host:port, e.g. 127.0.0.1:7007)", addr, err)
	}
	if host == "" {
		return fmt.Errorf("listen address %q binds every interface; name the host, e.g. 127.0.0.1%s", addr, addr)
	}
	if !isLoopbackHost(host) && token == "" {
		return fmt.Errorf("listen address %q is not loopback: set a token with --token or TRIAGE_TOKEN", addr)
	}
	return nil
}

// HTTPHandler returns the MCP handler wrapped in authentication and origin
// checks.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	max := o.MaxBodyBytes
	if max == 0 {
		max = 8 << 20
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		MaxRequestBodyBytes: max,
		SessionTimeout:      30 * time.Minute,
	})
	return guard(o.Token, h)
}

// guard refuses requests with a wrong bearer token (401) or whose Origin is
// neither the server's own host nor loopback (403: DNS-rebinding protection).
func guard(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, r.Host) {
			http.Error(w, "forbidden origin "+origin, http.StatusForbidden)
			return
		}
		if token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="triage"`)
				http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func originAllowed(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	return isLoopbackHost(u.Hostname())
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// ServeHTTP listens on o.Addr and serves until ctx is done. ready, if non-nil,
// receives the bound address once listening (useful with port 0).
func (s *Server) ServeHTTP(ctx context.Context, o HTTPOptions, ready func(addr string)) error {
	if err := CheckAddr(o.Addr, o.Token); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", o.Addr, err)
	}
	if o.HeaderTimeout == 0 {
		o.HeaderTimeout = 10 * time.Second
	}
	srv := &http.Server{
		Handler:           s.HTTPHandler(o),
		ReadHeaderTimeout: o.HeaderTimeout,
		IdleTimeout:       2 * time.Minute,
	}
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		err := srv.Shutdown(shutCtx)
		if errors.Is(err, context.DeadlineExceeded) {
			err = srv.Close()
		}
		return err
	}
}
