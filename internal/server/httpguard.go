package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// guard refuses requests from a browser origin that is not the server's own
// nor allowed (403: DNS-rebinding and cross-site protection) and, when
// tokens are set (verify is not nil), requests without one of them as bearer
// token (401). The token's identity goes into the request context, where the
// SDK binds each session to the identity that created it (403 "session user
// mismatch" for any other), and the tool calls' caller comes from it (see
// withCaller).
//
// A refusal is answered at once and closes the connection: net/http would
// otherwise read what is left of the request's body before answering, so a
// client without a token that sends a Content-Length and never the body
// would hold the connection (and a goroutine) open for as long as it likes.
//
// A failed authentication is logged and slowed per remote address by lim
// (see authLimiter); nil answers each at once.
func guard(verify auth.TokenVerifier, lim *authLimiter, allowOrigins []string, next http.Handler) http.Handler {
	var require func(http.Handler) http.Handler
	if verify != nil {
		require = auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, local, allowOrigins) {
			refuse(w, http.StatusForbidden, "forbidden origin "+origin)
			return
		}
		if require == nil {
			next.ServeHTTP(w, r)
			return
		}
		// The middleware writes to its writer only to refuse, which is kept
		// to be answered after the limiter's delay; a request it lets
		// through reaches next with the server's own writer, which streams
		// (Flusher) as the SDK needs.
		passed := false
		pass := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			passed = true
			next.ServeHTTP(w, r)
		})
		kept := &refusal{header: w.Header()}
		require(pass).ServeHTTP(kept, r)
		switch {
		case passed:
		case lim != nil:
			lim.refuseSlowly(w, r, kept.code, strings.TrimSuffix(kept.body.String(), "\n"))
		default:
			refuse(w, kept.code, strings.TrimSuffix(kept.body.String(), "\n"))
		}
	})
}

// refusal keeps the answer the bearer middleware refuses a request with;
// its headers are the response's own.
type refusal struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (f *refusal) Header() http.Header { return f.header }

func (f *refusal) WriteHeader(code int) {
	if f.code == 0 {
		f.code = code
	}
}

func (f *refusal) Write(b []byte) (int, error) {
	f.WriteHeader(http.StatusOK)
	return f.body.Write(b)
}

// closing is a ResponseWriter whose answer closes the connection.
type closing struct{ http.ResponseWriter }

func (c closing) WriteHeader(code int) {
	c.Header().Set("Connection", "close")
	c.ResponseWriter.WriteHeader(code)
}

func (c closing) Write(b []byte) (int, error) {
	c.Header().Set("Connection", "close") // a no-op once the header is written
	return c.ResponseWriter.Write(b)
}

// refuse answers code and msg, closing the connection (see guard).
func refuse(w http.ResponseWriter, code int, msg string) {
	http.Error(closing{w}, msg, code)
}

// defaultBodyTimeout is HTTPOptions.BodyTimeout's default: 8 MiB (the
// default body bound) at about 140 KB/s.
const defaultBodyTimeout = 60 * time.Second

// boundBody reads an authenticated request's body whole, at most max bytes,
// within timeout (defaultBodyTimeout when 0), before next sees it: a client
// that sends a Content-Length and then trickles or stops is answered 408
// when the time is up, where the server would otherwise wait for it as long
// as the connection lives. An http.Server's ReadTimeout cannot do this: it
// would also end the streams and long calls that follow the body.
func boundBody(timeout time.Duration, max int64, next http.Handler) http.Handler {
	if timeout <= 0 {
		timeout = defaultBodyTimeout
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		rc.SetReadDeadline(time.Now().Add(timeout)) // ErrNotSupported (a recorder): no bound
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
		rc.SetReadDeadline(time.Time{}) // what follows the body (a call's stream) has no deadline
		var tooBig *http.MaxBytesError
		var netErr net.Error
		switch {
		case errors.As(err, &tooBig):
			refuse(w, http.StatusRequestEntityTooLarge, "request body over its bound")
			return
		case errors.As(err, &netErr) && netErr.Timeout():
			refuse(w, http.StatusRequestTimeout, "request body not sent within "+timeout.String())
			return
		case err != nil:
			refuse(w, http.StatusBadRequest, "reading the request body: "+err.Error())
			return
		}
		r = r.WithContext(r.Context())
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// noBody refuses, at once, a request that carries a body: the page is
// read-only (every request a GET) and authenticates by its cookie after
// the request is read, so a body it never reads is one net/http would wait
// for before answering, as for a refusal (see guard).
func noBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength != 0 { // -1: a chunked body
			refuse(w, http.StatusBadRequest, "the page's requests carry no body")
			return
		}
		next.ServeHTTP(w, r)
	})
}
