package webui

import (
	"crypto/rand"
	"crypto/subtle"
	"net/http"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/identity"
)

// CookieName is the page's login cookie.
const CookieName = "triage_ui"

// Limits of the login book: a code is good once and for CodeTTL; at most
// maxSessions cookies are remembered (the oldest is forgotten first).
const (
	CodeTTL     = 10 * time.Minute
	maxCodes    = 64
	maxSessions = 256
)

// Logins holds one-time login codes and the cookies they became, each
// naming the identity it acts as. They live in memory: a server's restart
// logs everyone out.
type Logins struct {
	mu       sync.Mutex
	codes    map[string]pending         // guarded by mu
	sessions map[string]identity.Caller // guarded by mu
	order    []string                   // sessions, oldest first; guarded by mu
	now      func() time.Time
}

type pending struct {
	caller  identity.Caller
	expires time.Time
}

// NewLogins returns an empty login book.
func NewLogins() *Logins {
	return &Logins{codes: map[string]pending{}, sessions: map[string]identity.Caller{}, now: time.Now}
}

// Mint returns a new one-time code that logs a browser in as c.
func (l *Logins) Mint(c identity.Caller) string {
	code := rand.Text()
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	for k, p := range l.codes {
		if now.After(p.expires) {
			delete(l.codes, k)
		}
	}
	if len(l.codes) >= maxCodes { // a flood of unused codes: the oldest go
		for k := range l.codes {
			delete(l.codes, k)
			break
		}
	}
	l.codes[code] = pending{caller: c, expires: now.Add(CodeTTL)}
	return code
}

// Redeem takes code out of the book (once) and returns the cookie of a
// new login as its identity; false for a code unknown, used or expired.
func (l *Logins) Redeem(code string) (*http.Cookie, bool) {
	if code == "" {
		return nil, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var found *pending
	var key string
	for k, p := range l.codes { // constant time per comparison
		if subtle.ConstantTimeCompare([]byte(k), []byte(code)) == 1 {
			found, key = &p, k
		}
	}
	if found == nil {
		return nil, false
	}
	delete(l.codes, key)
	if l.now().After(found.expires) {
		return nil, false
	}
	session := rand.Text()
	l.sessions[session] = found.caller
	l.order = append(l.order, session)
	if len(l.order) > maxSessions {
		delete(l.sessions, l.order[0])
		l.order = l.order[1:]
	}
	return &http.Cookie{
		Name: CookieName, Value: session, Path: "/ui/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	}, true
}

// FromRequest returns the identity of r's login cookie.
func (l *Logins) FromRequest(r *http.Request) (identity.Caller, bool) {
	ck, err := r.Cookie(CookieName)
	if err != nil || ck.Value == "" {
		return identity.Caller{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.sessions[ck.Value]
	return c, ok
}
