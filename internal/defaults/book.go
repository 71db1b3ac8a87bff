package defaults

import (
	"context"
	"sync"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/identity"
)

// Book keeps the session defaults of every client identity
// (internal/identity): each identity has its own Store, which starts from
// the configured profiles, and what one identity sets, clears or makes
// active no other sees. The server's own identity (stdio, a server with one
// token, the admin token) has the Store whose profiles the config file
// holds, and is the only one that may persist them there.
type Book struct {
	seed   map[string]Values
	active string

	mu     sync.Mutex
	stores map[string]*Store // by identity ID; guarded by mu
}

// NewBook returns a book whose identities start from profiles (copied) with
// active as their active profile ("" means DefaultProfile).
func NewBook(profiles map[string]Values, active string) (*Book, error) {
	own, err := NewStore(profiles, active)
	if err != nil {
		return nil, err
	}
	return &Book{seed: profiles, active: active, stores: map[string]*Store{"": own}}, nil
}

// For returns the Store of the caller in ctx, made on its first use.
func (b *Book) For(ctx context.Context) *Store {
	id := identity.Of(ctx).ID
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stores[id]
	if s == nil {
		s, _ = NewStore(b.seed, b.active) // checked by NewBook
		b.stores[id] = s
	}
	return s
}

// MayPersist refuses, as a usage error, to let a caller other than the
// server's own identity write defaults into the config file: the file is
// the server's, and what one client persisted would become every client's.
func (b *Book) MayPersist(ctx context.Context) error {
	if identity.Of(ctx).ID != "" {
		return fault.Usagef("persist: only the server's own identity (stdio, a server with one token, or its --admin-token) writes the config file; set these defaults without persist, they stay with this client for the server's life")
	}
	return nil
}
