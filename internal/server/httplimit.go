package server

import (
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// authLimiter slows failed authentications per remote address: the first
// few are answered at once, each later one is held a growing time (base,
// doubled per failure, at most max) before its 401, and once maxHeld of an
// address's answers are held, the next is answered 429 at once, so a
// flood holds at most maxHeld goroutines per address (maxHeldAll in all),
// each for at most max. A request with a good token is never held: on
// loopback every local user shares one address, and one user's guesses
// must not lock out another's client. Failures are forgotten window after
// the last one.
type authLimiter struct {
	log        *slog.Logger // nil: failures are not logged
	free       int          // failures answered at once
	base, max  time.Duration
	maxHeld    int
	maxHeldAll int
	window     time.Duration
	now        func() time.Time

	mu   sync.Mutex
	by   map[string]*authFailures // by remote host; guarded by mu
	held int                      // answers held now, all addresses; guarded by mu
}

type authFailures struct {
	n    int // failures within window of each other
	last time.Time
	held int // answers held now
}

// newAuthLimiter returns the limiter guard uses: 3 failures free, then
// 100 ms doubling to 5 s.
func newAuthLimiter(log *slog.Logger) *authLimiter {
	return &authLimiter{log: log, free: 3, base: 100 * time.Millisecond, max: 5 * time.Second,
		maxHeld: 8, maxHeldAll: 256, window: 15 * time.Minute, now: time.Now, by: map[string]*authFailures{}}
}

// fail records a failed authentication from host and returns how long to
// hold its answer; false when its answer must not be held (too many are)
// and is to be refused at once. A held answer calls release when sent.
func (l *authLimiter) fail(host string) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	f := l.by[host]
	if f == nil || now.Sub(f.last) > l.window {
		l.prune(now)
		if f == nil {
			f = &authFailures{}
			l.by[host] = f
		}
		f.n = 0
	}
	f.n++
	f.last = now
	if l.log != nil && f.n&(f.n-1) == 0 { // the 1st, 2nd, 4th, 8th...: a flood logs a few lines
		l.log.Warn("failed authentication (missing or wrong bearer token)", "remote", host, "failures", f.n, "within", l.window)
	}
	if f.n <= l.free {
		return 0, true
	}
	if f.held >= l.maxHeld || l.held >= l.maxHeldAll {
		return 0, false
	}
	d := l.max
	if shift := f.n - l.free - 1; shift < 16 && l.base<<shift < l.max {
		d = l.base << shift
	}
	f.held++
	l.held++
	return d, true
}

// release ends one held answer of host.
func (l *authLimiter) release(host string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held--
	if f := l.by[host]; f != nil {
		f.held--
	}
}

// prune forgets addresses whose failures are older than the window, so a
// scan from many addresses does not grow the table for ever.
func (l *authLimiter) prune(now time.Time) {
	if len(l.by) < 1024 {
		return
	}
	for h, f := range l.by {
		if f.held == 0 && now.Sub(f.last) > l.window {
			delete(l.by, h)
		}
	}
}

// refuseSlowly answers a failed authentication (code and msg, headers
// already set on w) after the limiter's delay for r's remote address, or
// 429 at once when too many of that address's answers are held already.
// A client that goes away ends its wait.
func (l *authLimiter) refuseSlowly(w http.ResponseWriter, r *http.Request, code int, msg string) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	d, ok := l.fail(host)
	if !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(l.max/time.Second)))
		refuse(w, http.StatusTooManyRequests, "too many failed authentications from "+host+": wait and retry with the right token")
		return
	}
	if d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
		}
		t.Stop()
		l.release(host)
	}
	refuse(w, code, msg)
}
