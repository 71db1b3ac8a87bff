// Package webui, in this stub, is the web page taken out of the binary:
// BenchmarkPageSize builds triage with it (go build -overlay) in place of
// internal/webui's files, to weigh what the page adds. It keeps only the
// API the rest of triage calls, serving nothing.
package webui

import (
	"context"
	"net/http"

	"github.com/triage-dev/triage/internal/identity"
	"github.com/triage-dev/triage/internal/services"
)

// Options is the real package's.
type Options struct {
	Doctor func(ctx context.Context) string
}

// UI serves nothing.
type UI struct{ logins Logins }

// Logins mints nothing.
type Logins struct{}

// New returns a page that serves nothing.
func New(*services.Set, Options) *UI { return &UI{} }

// Logins returns the empty login book.
func (u *UI) Logins() *Logins { return &u.logins }

// Mint returns no code.
func (*Logins) Mint(identity.Caller) string { return "" }

// Close does nothing.
func (*UI) Close() {}

// Streams is always 0.
func (*UI) Streams() int { return 0 }

// ServeHTTP answers 404.
func (*UI) ServeHTTP(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }
