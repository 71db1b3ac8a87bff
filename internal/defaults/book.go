package defaults

import (
	"context"
	"sort"
	"strings"
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

// Resolve names the Store and profile a call means: the caller's own, or,
// for a caller who sees everything (the admin), another client's when
// profile is "IDENTITY/PROFILE" ("token:1a2b…/default"; an empty PROFILE
// is that client's active one). Another identity that is not known is
// not found, in the words of an unknown profile.
func (b *Book) Resolve(ctx context.Context, profile string) (*Store, string, error) {
	id, name, ok := strings.Cut(profile, "/")
	if !ok {
		return b.For(ctx), profile, nil
	}
	b.mu.Lock()
	s := b.stores[id]
	b.mu.Unlock()
	if s == nil || id == "" || !identity.Of(ctx).Sees(id) {
		return nil, "", fault.NotFoundf("profile %q: no such profile", profile)
	}
	return s, name, nil
}

// Others lists the identities other than the caller's that hold defaults,
// for a caller who sees everything; nil for anyone else.
func (b *Book) Others(ctx context.Context) []string {
	c := identity.Of(ctx)
	if !c.All {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var ids []string
	for id := range b.stores {
		if id != "" && id != c.ID {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}
