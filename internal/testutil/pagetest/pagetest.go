// Package pagetest logs a test's HTTP client in to triage's web page as a
// browser does: it follows a one-time login URL, keeps the cookie, and
// sends the login's key with every later request, as the page's script
// does.
package pagetest

import (
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/webui"
)

// Browser opens loginURL and returns a client logged in by it. The login
// must end on the page, with its key in the address's fragment.
func Browser(t testing.TB, loginURL string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(loginURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	key, ok := strings.CutPrefix(resp.Request.URL.Fragment, "key=")
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/ui/" || !ok {
		t.Fatalf("login ended at %s with %d", resp.Request.URL, resp.StatusCode)
	}
	c.Transport = keyed{key, http.DefaultTransport}
	return c
}

// keyed sends the login's key with every request.
type keyed struct {
	key  string
	next http.RoundTripper
}

func (k keyed) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(webui.KeyHeader, k.key)
	return k.next.RoundTrip(r)
}
