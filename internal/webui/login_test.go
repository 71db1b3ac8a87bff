package webui

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/identity"
)

var (
	alice = identity.Caller{ID: "token:alice"}
	bob   = identity.Caller{ID: "token:bob"}
)

// loginServer serves a page on a loopback port and returns its URL.
func loginServer(t *testing.T) (*UI, string) {
	t.Helper()
	u, _, _, _ := serveUI(t)
	ts := httptest.NewServer(u)
	t.Cleanup(ts.Close)
	return u, ts.URL
}

// jarClient is a browser: it keeps cookies and does not follow redirects,
// so that each answer is seen.
func jarClient() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// keyOf is the login's key in a login answer's redirect.
func keyOf(t *testing.T, location string) string {
	t.Helper()
	_, key, ok := strings.Cut(location, "#key=")
	if !ok || key == "" {
		t.Fatalf("the login redirects to %q, with no key", location)
	}
	return key
}

// do sends a request with headers (name, value, ...) and returns the answer's
// status and body.
func do(t *testing.T, c *http.Client, method, url string, hdr ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestLoginCookieCarriesPort: the cookie is named for its port, so one
// browser logged in to two pages on two ports of one host (cookies ignore
// ports) stays logged in to both; a page does not take the other's cookie.
func TestLoginCookieCarriesPort(t *testing.T) {
	u1, base1 := loginServer(t)
	u2, base2 := loginServer(t)
	b := jarClient()
	keys := map[string]string{}
	for _, p := range []struct {
		u    *UI
		base string
	}{{u1, base1}, {u2, base2}} {
		req, _ := http.NewRequest("GET", p.base+"/ui/login?code="+p.u.Logins().Mint(identity.Server), nil)
		resp, err := b.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		port := p.base[strings.LastIndex(p.base, ":")+1:]
		if cs := resp.Cookies(); resp.StatusCode != http.StatusSeeOther || len(cs) != 1 || cs[0].Name != "triage_session_"+port {
			t.Fatalf("login on port %s: %d, cookies %v", port, resp.StatusCode, cs)
		}
		keys[p.base] = keyOf(t, resp.Header.Get("Location"))
	}
	for _, base := range []string{base1, base2} {
		if code, body := do(t, b, "GET", base+"/ui/api/tools", KeyHeader, keys[base]); code != 200 {
			t.Errorf("%s after logging in to both pages: %d %s", base, code, body)
		}
	}
}

// TestLoginsCappedPerIdentity: a flood of one identity's logins forgets
// its own oldest sessions, never another identity's.
func TestLoginsCappedPerIdentity(t *testing.T) {
	l := NewLogins()
	login := func(c identity.Caller) *http.Cookie {
		ck, _, ok := l.Redeem(l.Mint(c))
		if !ok {
			t.Fatal("a fresh code was refused")
		}
		return ck
	}
	holds := func(ck *http.Cookie) bool {
		r := httptest.NewRequest("GET", "/ui/api/runs", nil)
		r.AddCookie(ck)
		_, _, ok := l.FromRequest(r)
		return ok
	}
	kept, first := login(alice), login(bob)
	var last *http.Cookie
	for range 2 * maxSessions {
		last = login(bob)
	}
	if !holds(kept) {
		t.Error("bob's flood of logins logged alice out")
	}
	if holds(first) || !holds(last) {
		t.Errorf("bob's first login kept %v, last %v: want his oldest forgotten, his newest kept", holds(first), holds(last))
	}
	if len(l.sessions) > maxPerIdentity+1 {
		t.Errorf("%d sessions remembered", len(l.sessions))
	}
}

// TestLoginAsAnotherIdentityIsConfirmed: a browser logged in as alice
// that opens bob's login link (which any page can make it do) stays
// alice's and is shown a form; the form's same-origin POST logs it in as
// bob, a POST from another site does not, and the code is not used up by
// the GET.
func TestLoginAsAnotherIdentityIsConfirmed(t *testing.T) {
	u, base := loginServer(t)
	b := jarClient()
	if code, _ := do(t, b, "GET", base+"/ui/login?code="+u.Logins().Mint(alice)); code != http.StatusSeeOther {
		t.Fatalf("alice's login: %d", code)
	}
	who := func() identity.Caller {
		req := httptest.NewRequest("GET", base+"/ui/", nil)
		for _, ck := range b.Jar.Cookies(req.URL) {
			req.AddCookie(ck)
		}
		// as the server sees it: reached at base's port
		local, _ := net.ResolveTCPAddr("tcp", strings.TrimPrefix(base, "http://"))
		c, _, _ := u.Logins().FromRequest(req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, local)))
		return c
	}
	bobURL := base + "/ui/login?code=" + u.Logins().Mint(bob)
	code, body := do(t, b, "GET", bobURL)
	if code != 200 || !strings.Contains(body, `method="post"`) || !strings.Contains(body, "client token:bob") || who() != alice {
		t.Fatalf("bob's link in alice's browser: %d, identity %v, page:\n%s", code, who(), body)
	}
	if code, _ := do(t, b, "POST", bobURL, "Sec-Fetch-Site", "same-site", "Origin", "http://localhost:1"); code != http.StatusForbidden || who() != alice {
		t.Errorf("a POST from another site: %d, identity %v; want 403 and alice", code, who())
	}
	if code, _ := do(t, b, "POST", bobURL, "Sec-Fetch-Site", "same-origin", "Origin", base); code != http.StatusSeeOther || who() != bob {
		t.Errorf("the confirmation: %d, identity %v; want a redirect and bob", code, who())
	}
}

// TestUsedLoginLinkShowsThePage: a login link opened again by the browser
// it logged in (a reload, a second click) leads to the page; in another
// browser it is refused.
func TestUsedLoginLinkShowsThePage(t *testing.T) {
	u, base := loginServer(t)
	url := base + "/ui/login?code=" + u.Logins().Mint(alice)
	b := jarClient()
	if code, _ := do(t, b, "GET", url); code != http.StatusSeeOther {
		t.Fatalf("first use: %d", code)
	}
	if code, body := do(t, b, "GET", url); code != http.StatusSeeOther {
		t.Errorf("the same browser again: %d %s, want the page", code, body)
	}
	req, _ := http.NewRequest("GET", url, nil)
	resp, err := b.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if code, body := do(t, b, "GET", base+"/ui/api/tools", KeyHeader, keyOf(t, resp.Header.Get("Location"))); code != 200 {
		t.Errorf("the page's API with the key the used link gave again: %d %s", code, body)
	}
	if code, _ := do(t, jarClient(), "GET", url); code != http.StatusForbidden {
		t.Errorf("another browser: %d, want 403", code)
	}
}

// TestCookieAloneOpensNothing: the login cookie, which a browser sends to
// every port of the host (a program of another user listening there gets
// it), opens none of the page's API without the login's key; the key
// opens it as a header or as the query's "key" (the event stream's and
// downloads' way), and another login's key does not.
func TestCookieAloneOpensNothing(t *testing.T) {
	u, base := loginServer(t)
	b := jarClient()
	login := func(c identity.Caller) string {
		req, _ := http.NewRequest("GET", base+"/ui/login?code="+u.Logins().Mint(c), nil)
		resp, err := b.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return keyOf(t, resp.Header.Get("Location"))
	}
	other, key := login(alice), login(alice)
	if code, body := do(t, b, "GET", base+"/ui/api/tools"); code != http.StatusUnauthorized {
		t.Errorf("the cookie alone: %d %s, want 401", code, body)
	}
	if code, _ := do(t, b, "GET", base+"/ui/api/tools", KeyHeader, other); code != http.StatusUnauthorized {
		t.Errorf("another login's key: %d, want 401", code)
	}
	if code, body := do(t, b, "GET", base+"/ui/api/tools", KeyHeader, key); code != 200 {
		t.Errorf("the cookie and its key: %d %s", code, body)
	}
	if code, body := do(t, b, "GET", base+"/ui/api/tools?key="+key); code != 200 {
		t.Errorf("the key in the query: %d %s", code, body)
	}
	if code, _ := do(t, http.DefaultClient, "GET", base+"/ui/api/tools?key="+key); code != http.StatusUnauthorized {
		t.Errorf("the key without the cookie: %d, want 401", code)
	}
}
