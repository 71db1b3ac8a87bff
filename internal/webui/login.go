package webui

import (
	"crypto/rand"
	"crypto/subtle"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/identity"
)

// cookiePrefix begins the page's login cookie's name; the port follows
// (CookieName).
const cookiePrefix = "triage_session"

// CookieName is the name of the login cookie of the page served on port.
// Browsers keep cookies by host, whatever the port: under one name, the
// pages of two servers on one host would each log the other out, and a
// server could take the other's cookie for its own. With the port in the
// name each page reads only its own. A program on another port of the
// same host is still sent the cookie, which is why the cookie alone opens
// nothing: the page's API also needs the login's key (KeyHeader).
func CookieName(port string) string {
	if port == "" {
		return cookiePrefix
	}
	return cookiePrefix + "_" + port
}

// cookieName is the login cookie's name for the listener r reached.
func cookieName(r *http.Request) string {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if _, port, err := net.SplitHostPort(a.String()); err == nil {
			return CookieName(port)
		}
	}
	return CookieName("")
}

// KeyHeader carries a login's key, its second half: the login redirects
// to the page with the key in the address's fragment (never sent to a
// server), and the page's script keeps it in its origin's storage, which,
// unlike a cookie, no other port of the host can read. The script sends it
// in this header, or as the query's "key" where a browser sends no header
// (the event stream, a download link).
const KeyHeader = "X-Triage-Key"

// Limits of the login book: a code is good once and for CodeTTL; at most
// maxSessions cookies are remembered, maxPerIdentity of one identity (its
// oldest is forgotten first), so that one identity's flood of logins logs
// out only its own older browsers.
const (
	CodeTTL        = 10 * time.Minute
	maxCodes       = 64
	maxSessions    = 256
	maxPerIdentity = 16
)

// Logins holds one-time login codes and the cookies they became, each
// naming the identity it acts as. They live in memory: a server's restart
// logs everyone out.
type Logins struct {
	mu       sync.Mutex
	codes    map[string]pending // guarded by mu
	used     map[string]pending // redeemed codes until they would have expired; guarded by mu
	sessions map[string]login   // by cookie value; guarded by mu
	order    []string           // sessions, oldest first; guarded by mu
	now      func() time.Time
}

// login is a browser's login: its identity and its key (KeyHeader).
type login struct {
	caller identity.Caller
	key    string
}

type pending struct {
	caller  identity.Caller
	expires time.Time
}

// NewLogins returns an empty login book.
func NewLogins() *Logins {
	return &Logins{codes: map[string]pending{}, used: map[string]pending{}, sessions: map[string]login{}, now: time.Now}
}

// Mint returns a new one-time code that logs a browser in as c.
func (l *Logins) Mint(c identity.Caller) string {
	code := rand.Text()
	l.mu.Lock()
	defer l.mu.Unlock()
	prune(l.codes, l.now())
	l.codes[code] = pending{caller: c, expires: l.now().Add(CodeTTL)}
	return code
}

// prune drops the expired codes of m, and, to leave room for one more
// under maxCodes (a flood), any.
func prune(m map[string]pending, now time.Time) {
	for k, p := range m {
		if now.After(p.expires) || len(m) >= maxCodes {
			delete(m, k)
		}
	}
}

// codeState is what a login code is: good, used already, or neither
// (unknown or expired).
type codeState int

const (
	codeUnknown codeState = iota
	codeGood
	codeUsed
)

// find returns code's state and its identity; l.mu is held.
func (l *Logins) find(code string) (string, pending, codeState) {
	if code == "" {
		return "", pending{}, codeUnknown
	}
	now := l.now()
	for _, book := range []struct {
		m     map[string]pending
		state codeState
	}{{l.codes, codeGood}, {l.used, codeUsed}} {
		var key string
		var found pending
		for k, p := range book.m { // constant time per comparison
			if subtle.ConstantTimeCompare([]byte(k), []byte(code)) == 1 {
				key, found = k, p
			}
		}
		if key != "" && !now.After(found.expires) {
			return key, found, book.state
		}
	}
	return "", pending{}, codeUnknown
}

// Peek tells what code is, and the identity it logs in as, without using it.
func (l *Logins) Peek(code string) (identity.Caller, codeState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, p, state := l.find(code)
	return p.caller, state
}

// Redeem takes code out of the book (once) and returns the cookie of a
// new login as its identity, named CookieName(""): the caller names it
// for its port; and the login's key (KeyHeader). False for a code
// unknown, used or expired.
func (l *Logins) Redeem(code string) (*http.Cookie, string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key, p, state := l.find(code)
	if state != codeGood {
		return nil, "", false
	}
	delete(l.codes, key)
	prune(l.used, l.now())
	l.used[key] = p
	session, pageKey := rand.Text(), rand.Text()
	l.sessions[session] = login{caller: p.caller, key: pageKey}
	l.order = append(l.order, session)
	l.evict(p.caller)
	return &http.Cookie{
		Name: CookieName(""), Value: session, Path: "/ui/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	}, pageKey, true
}

// evict forgets c's oldest sessions over maxPerIdentity, then, over
// maxSessions in all, the oldest of the identity with the most; l.mu is
// held.
func (l *Logins) evict(c identity.Caller) {
	count := map[identity.Caller]int{}
	for _, s := range l.order {
		count[l.sessions[s].caller]++
	}
	for count[c] > maxPerIdentity {
		l.forgetOldest(c)
		count[c]--
	}
	for len(l.order) > maxSessions {
		most := c
		for k, n := range count {
			if n > count[most] {
				most = k
			}
		}
		l.forgetOldest(most)
		count[most]--
	}
}

// forgetOldest forgets c's oldest session; l.mu is held.
func (l *Logins) forgetOldest(c identity.Caller) {
	for i, s := range l.order {
		if l.sessions[s].caller == c {
			delete(l.sessions, s)
			l.order = append(l.order[:i], l.order[i+1:]...)
			return
		}
	}
}

// FromRequest returns the login of r's cookie (the one of the port r
// reached): whom the browser is logged in as, which the login page needs;
// it is no authority to read the page's API (Authorize is).
func (l *Logins) FromRequest(r *http.Request) (identity.Caller, string, bool) {
	ck, err := r.Cookie(cookieName(r))
	if err != nil || ck.Value == "" {
		return identity.Caller{}, "", false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	in, ok := l.sessions[ck.Value]
	return in.caller, in.key, ok
}

// Authorize returns the identity r acts as: its cookie's login, when r
// also carries that login's key (KeyHeader, or the query's "key").
func (l *Logins) Authorize(r *http.Request) (identity.Caller, bool) {
	c, key, ok := l.FromRequest(r)
	if !ok {
		return identity.Caller{}, false
	}
	got := r.Header.Get(KeyHeader)
	if got == "" {
		got = r.URL.Query().Get("key")
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(key)) != 1 {
		return identity.Caller{}, false
	}
	return c, true
}
