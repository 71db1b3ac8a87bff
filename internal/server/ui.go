package server

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/triage-dev/triage/internal/identity"
)

// LoginCodePath is where a client with a bearer token (or anyone, on a
// server without tokens) asks, by POST, for a one-time login URL of the
// web page: the page then shows that token's identity's state only.
const LoginCodePath = "/ui/login-code"

// LoginURL returns a one-time URL, under base ("http://host:port"), that
// logs a browser into the web page as c.
func (s *Server) LoginURL(base string, c identity.Caller) string {
	return base + "/ui/login?code=" + url.QueryEscape(s.UI.Logins().Mint(c))
}

// loginCode answers a POST with a one-time login URL for the caller its
// bearer token names (the token verifier's identity, as for MCP calls).
func (s *Server) loginCode() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			http.Error(w, "POST to get a one-time login URL", http.StatusMethodNotAllowed)
			return
		}
		c := identity.Server
		if info := auth.TokenInfoFromContext(r.Context()); info != nil {
			if tc, ok := info.Extra[callerKey].(identity.Caller); ok {
				c = tc
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		// The address the request reached, never its Host header (which a
		// rebound DNS name controls).
		base := ""
		if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			base = "http://" + a.String()
		}
		json.NewEncoder(w).Encode(map[string]string{"url": s.LoginURL(base, c)})
	})
}
