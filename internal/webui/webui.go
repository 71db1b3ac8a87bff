// Package webui is triage's local web page for the person beside the agent:
// the stored runs with their verdicts, one run's output (paged, searched,
// downloaded), the live sessions and what the doctor says, updated live
// while the agent works.
//
// The page is plain HTML, CSS and JavaScript embedded in the binary (no
// framework, no CDN, no build step; it works offline) and reads JSON under
// /ui/api/. It is read-only: every endpoint is a GET (but the POST that
// confirms a login as another identity), and nothing it serves changes
// state. A person logs in once through a one-time code (Logins), which
// sets an HttpOnly, SameSite=Strict cookie, named for the port, naming the
// identity the code was made for; every API request acts as that identity, so a token's
// page shows what that token's calls created and nothing else, through the
// same store and managers the tools use (internal/identity). The server
// (internal/server) routes /ui/ here and applies its Origin rules first.
//
// Every byte of program output reaches the page as JSON text, and the page
// puts it in the document with textContent only, under a
// Content-Security-Policy that allows no inline script or style.
package webui

import (
	"context"
	"embed"
	"io/fs"
	"net/http"
	"sync"

	"github.com/triage-dev/triage/internal/identity"
	"github.com/triage-dev/triage/internal/services"
)

//go:embed assets
var assets embed.FS

// Options adjust New.
type Options struct {
	// Doctor returns what `triage doctor` says (its text), as the caller in
	// ctx would get it.
	Doctor func(ctx context.Context) string
}

// UI serves the page and its API for one server's services.
type UI struct {
	svc     *services.Set
	logins  *Logins
	doctor  func(ctx context.Context) string
	mux     *http.ServeMux // made by the first request: a stdio server never serves one
	muxOnce sync.Once

	watch watch // the store's Version, polled for every live stream at once

	closeOnce sync.Once
	closed    chan struct{} // closed by Close: live streams end
}

// policy is the page's Content-Security-Policy: its own scripts, styles and
// API only; no inline script or style, no frames, no other origin.
const policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// New returns the page of svc.
func New(svc *services.Set, o Options) *UI {
	u := &UI{svc: svc, logins: NewLogins(), doctor: o.Doctor, closed: make(chan struct{}), watch: watch{every: pollEvery}}
	if u.doctor == nil {
		u.doctor = func(context.Context) string { return "the doctor is not available here" }
	}
	return u
}

// Logins are the page's one-time codes and cookies.
func (u *UI) Logins() *Logins { return u.logins }

// Close ends the live streams (server-sent events) the page holds open, so
// that a server shutting down does not wait for them.
func (u *UI) Close() { u.closeOnce.Do(func() { close(u.closed) }) }

// Streams is the number of live streams open: pages open in a browser.
// The CLI's daemon does not idle out while there is one.
func (u *UI) Streams() int { return u.watch.streams() }

func (u *UI) routes() {
	static, _ := fs.Sub(assets, "assets")
	m := http.NewServeMux()
	m.Handle("GET /ui/assets/", http.StripPrefix("/ui/assets/", http.FileServerFS(static)))
	m.HandleFunc("GET /ui/login", u.login)
	m.HandleFunc("POST /ui/login", u.login) // the confirmation of a login as another identity (loginpage.go)
	api := func(pattern string, h http.HandlerFunc) { m.Handle("GET /ui/api/"+pattern, u.authed(h)) }
	api("runs", u.runs)
	api("tools", u.tools)
	api("runs/{id}", u.run)
	api("runs/{id}/lines", u.lines)
	api("runs/{id}/search", u.search)
	api("runs/{id}/raw", u.raw)
	api("sessions", u.sessions)
	api("processes/{id}/output", u.processOutput)
	api("doctor", u.doctorReport)
	api("events", u.events)
	m.HandleFunc("GET /ui/api/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such endpoint: "+r.URL.Path, http.StatusNotFound)
	})
	m.HandleFunc("GET /ui/", u.index)
	u.mux = m
}

// ServeHTTP serves requests under /ui/ with the page's security headers.
// Other methods than GET (and HEAD) are refused: the page is read-only,
// but for the POST that confirms a login as another identity.
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", policy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if r.Method != http.MethodGet && r.Method != http.MethodHead && (r.Method != http.MethodPost || r.URL.Path != "/ui/login") {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "the page is read-only: "+r.Method+" is not served", http.StatusMethodNotAllowed)
		return
	}
	u.muxOnce.Do(u.routes)
	u.mux.ServeHTTP(w, r)
}

// index serves the page itself for every path of the page (/ui/,
// /ui/runs/ID, /ui/sessions, ...): the script routes by the path.
func (u *UI) index(w http.ResponseWriter, r *http.Request) {
	page, err := assets.ReadFile("assets/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(page)
}

// authed lets a request through with the identity of its login (cookie
// and key) in its context, or answers 401 with how to log in.
func (u *UI) authed(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := u.logins.Authorize(r)
		if !ok {
			writeError(w, http.StatusUnauthorized, "not logged in: open the login URL that `triage ui` (or `triage serve --http`, on its stderr) printed")
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		next(w, r.WithContext(identity.With(r.Context(), c)))
	})
}
