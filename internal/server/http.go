package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/identity"
)

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	// Addr is host:port to listen on; the host must be given (":8080" would bind
	// every interface and is refused).
	Addr string
	// Token, when set, must arrive as "Authorization: Bearer TOKEN". It is
	// required when Addr is not a loopback address.
	Token string
	// Tokens are further accepted tokens. Each token is one client identity:
	// an MCP session belongs to the token that created it, and a request for
	// it under another token is refused (403). When the server accepts two
	// tokens or more (admin tokens included), what a client creates belongs
	// to its token's identity too (see internal/identity); with one token
	// there is one identity, the server's own, as over stdio.
	Tokens []string
	// AdminTokens are accepted too, and are the server's own identity: they
	// see and may act on what every client created.
	AdminTokens []string
	// AllowOrigins are browser origins ("http://host:port") accepted besides
	// the server's own; see originAllowed.
	AllowOrigins []string
	// MaxBodyBytes bounds a request body (default 8 MiB).
	MaxBodyBytes int64
	// HeaderTimeout bounds how long a client may take to send its request
	// headers (default 10 s): slow-loris clients are cut off.
	HeaderTimeout time.Duration
	// Log, when set, receives the failed authentications (see authLimiter).
	Log *slog.Logger
	// BodyTimeout bounds how long an authenticated client may take to send
	// a request's body (default 60 s; see boundBody). An unauthenticated
	// one is answered before its body is read.
	BodyTimeout time.Duration
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

// MinTokenLen is the shortest bearer token accepted: 16 characters, where
// one of 1 could be guessed in a few requests.
const MinTokenLen = 16

// CheckToken refuses a blank token (it would let no client in) and one
// shorter than MinTokenLen.
func CheckToken(t string) error {
	if strings.TrimSpace(t) == "" {
		return errors.New("a blank token would let no client in: give --token (or TRIAGE_TOKEN) a secret")
	}
	if n := len([]rune(t)); n < MinTokenLen {
		return fmt.Errorf("a token of %d characters is too short to be a secret: use %d or more (without --token, serve --http makes one of 26)", n, MinTokenLen)
	}
	return nil
}

// HTTPHandler returns the MCP handler wrapped in authentication and origin
// checks, with the web page under /ui/ (see ui.go).
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	max := o.MaxBodyBytes
	if max == 0 {
		max = 8 << 20
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		MaxRequestBodyBytes: max,
		SessionTimeout:      30 * time.Minute,
	})
	verify, lim := o.verifier(), newAuthLimiter(o.Log)
	mux := http.NewServeMux()
	mux.Handle("/", guard(verify, lim, o.AllowOrigins, boundBody(o.BodyTimeout, max, cancelOnDisconnect(h))))
	mux.Handle("/ui/", guard(nil, nil, o.AllowOrigins, noBody(s.UI)))
	mux.Handle(LoginCodePath, guard(verify, lim, o.AllowOrigins, boundBody(o.BodyTimeout, max, s.loginCode())))
	return mux
}

// tokens are the client tokens accepted, admin tokens not included.
func (o HTTPOptions) tokens() []string {
	var out []string
	for _, t := range append([]string{o.Token}, o.Tokens...) {
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

// verifier checks bearer tokens, or is nil when none is set.
func (o HTTPOptions) verifier() auth.TokenVerifier {
	tokens := o.tokens()
	var admins []string
	for _, t := range o.AdminTokens {
		if t != "" {
			admins = append(admins, t)
		}
	}
	if len(tokens)+len(admins) == 0 {
		return nil
	}
	return tokenVerifier(tokens, admins)
}

// tokenVerifier accepts any of tokens and admins, comparing against every
// one in constant time, and names the client by a hash of its token (the
// token itself never reaches a log or the session table). With two tokens
// or more, the token info carries the caller its tool calls act as: its own
// identity, or the server's for an admin token.
func tokenVerifier(tokens, admins []string) auth.TokenVerifier {
	all := append(append([]string{}, tokens...), admins...)
	several := len(all) > 1
	return func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		match := -1
		for i, t := range all {
			if subtle.ConstantTimeCompare([]byte(got), []byte(t)) == 1 {
				match = i
			}
		}
		if match < 0 {
			return nil, fmt.Errorf("missing or wrong bearer token: %w", auth.ErrInvalidToken)
		}
		id := TokenIdentity(all[match])
		info := &auth.TokenInfo{UserID: id}
		switch {
		case match >= len(tokens):
			info.Extra = map[string]any{callerKey: identity.Server}
		case several:
			info.Extra = map[string]any{callerKey: identity.Caller{ID: id}}
		}
		return info, nil
	}
}

// callerKey holds, in a token's info, the identity its tool calls act as.
const callerKey = "triage/caller"

// withCaller puts the caller a request's bearer token names into the
// context every handler gets, so that the store and the managers show each
// identity its own (internal/identity). A request without one (stdio, a
// server with one token or none) acts as the server's own identity.
func withCaller(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil {
			if c, ok := extra.TokenInfo.Extra[callerKey].(identity.Caller); ok {
				ctx = identity.With(ctx, c)
			}
		}
		return next(ctx, method, req)
	}
}

// TokenIdentity is the client identity of a bearer token: a SHA-256 prefix.
func TokenIdentity(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "token:" + hex.EncodeToString(sum[:12])
}

// originAllowed accepts an origin listed in allow, and the server's own: the
// address the request reached (never the Host header, which a rebound DNS
// name controls), or, when that address is loopback, any loopback name with
// the same port (http://localhost:7007 for 127.0.0.1:7007). A page served
// from another port of this machine is another origin.
func originAllowed(origin string, local net.Addr, allow []string) bool {
	for _, a := range allow {
		if strings.EqualFold(strings.TrimSuffix(a, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || local == nil {
		return false
	}
	host, port, err := net.SplitHostPort(local.String())
	if err != nil || u.Port() != port {
		return false
	}
	if isLoopbackHost(host) {
		return isLoopbackHost(u.Hostname())
	}
	return net.ParseIP(strings.Trim(u.Hostname(), "[]")).Equal(net.ParseIP(host))
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
	if err := CheckAddr(o.Addr, strings.Join(append(o.tokens(), o.AdminTokens...), "")); err != nil {
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
	srv.RegisterOnShutdown(s.UI.Close) // the page's live streams end with the server
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
