package webui

import (
	"fmt"
	"html"
	"net/http"
	"net/url"

	"github.com/triage-dev/triage/internal/identity"
)

// login redeems a one-time code: the cookie (named for the port the
// request reached) is set and the browser goes to the page with the
// login's key (toPage), leaving the code out of its address bar and
// history.
//
// A browser already logged in as another identity is not switched by a
// GET, which any page may cause (a link, a redirect: login CSRF, where a
// hostile page logs the browser in as its own identity and the person
// then reads and acts on a page that is not theirs): it is shown what
// the link would do, and a same-origin POST from that page confirms. A
// code already used, opened again by a browser logged in as its identity
// (a reload, the link clicked twice), shows the page.
func (u *UI) login(w http.ResponseWriter, r *http.Request) {
	code := r.URL.Query().Get("code")
	current, key, in := u.logins.FromRequest(r)
	target, state := u.logins.Peek(code)
	switch {
	case state == codeUsed && in && current == target:
		toPage(w, r, key)
		return
	case state != codeGood:
		http.Error(w, "this login code is unknown, used or expired: run `triage ui` again for a new one", http.StatusForbidden)
		return
	case r.Method == http.MethodPost && !sameOrigin(r):
		http.Error(w, "a login is confirmed from the page's own origin only", http.StatusForbidden)
		return
	case r.Method != http.MethodPost && in && current != target:
		confirmLogin(w, code, current, target)
		return
	}
	cookie, key, ok := u.logins.Redeem(code)
	if !ok {
		http.Error(w, "this login code is unknown, used or expired: run `triage ui` again for a new one", http.StatusForbidden)
		return
	}
	cookie.Name = cookieName(r)
	http.SetCookie(w, cookie)
	toPage(w, r, key)
}

// toPage sends the browser to the page with its login's key in the
// address's fragment, which browsers never send: the page's script keeps
// it (KeyHeader) and takes it out of the address bar.
func toPage(w http.ResponseWriter, r *http.Request, key string) {
	http.Redirect(w, r, "/ui/#key="+key, http.StatusSeeOther)
}

// sameOrigin tells a POST a browser sent from the page itself: a browser
// says where a request comes from (Sec-Fetch-Site), or at least sends an
// Origin on a POST, which the server's guard has checked to be its own.
// A page on another port of this host is "same-site", not same-origin.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site == "same-origin"
	}
	return r.Header.Get("Origin") != ""
}

// confirmPolicy is the confirmation page's Content-Security-Policy: no
// script or style at all, and a form that posts to the page only.
const confirmPolicy = "default-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// confirmPage is the confirmation page; its %[n]s are HTML-escaped. It
// is written with fmt, not html/template: the template package's reflection
// keeps every exported method in the binary (megabytes).
const confirmPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>triage: log in as another identity?</title></head>
<body>
<h1>Log in as another identity?</h1>
<p>This browser is logged in to triage's page as %[1]s.
The link you opened logs in as %[2]s instead: the page would then show that identity's runs and sessions, not yours.</p>
<p>If you did not mean to open a login link (another page may have opened it), keep your login.</p>
<form method="post" action="/ui/login?code=%[3]s"><button type="submit">Log in as %[2]s</button></form>
<p><a href="/ui/">Keep the login as %[1]s</a></p>
</body></html>
`

// confirmLogin answers the confirmation page of a login as target from a
// browser logged in as current; the code is not used.
func confirmLogin(w http.ResponseWriter, code string, current, target identity.Caller) {
	h := w.Header()
	h.Set("Content-Security-Policy", confirmPolicy)
	// Under the page's no-referrer, a form's POST carries "Origin: null",
	// which the server's Origin rule refuses; same-origin sends the page's.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	fmt.Fprintf(w, confirmPage, html.EscapeString(describe(current)), html.EscapeString(describe(target)), html.EscapeString(url.QueryEscape(code)))
}

// describe names an identity for a person.
func describe(c identity.Caller) string {
	switch {
	case c.ID == "" && c.All:
		return "the server's own identity (every client's runs)"
	case c.ID == "":
		return "the server's identity"
	case c.All:
		return "administrator " + c.ID
	}
	return "client " + c.ID
}
