// Package identity says who is calling: the client identity a request
// carries in its context, and what that identity may see.
//
// Everything a client creates (stored outputs, background processes, debug
// and dump sessions, session defaults) records the identity that created it,
// and the domain's managers show it to that identity alone: to another, it
// does not exist, in the very words an unknown id gets.
//
// A context that carries no caller (stdio, the CLI, an HTTP server with one
// token or none, internal work) is the server's own identity (Server), which
// owns what was created without an identity and sees everything, as a
// single-client server always did. An HTTP server with several tokens gives
// each token its own Caller; an admin token is the server's own identity.
package identity

import "context"

// Caller is the identity of a request.
type Caller struct {
	// ID names the identity ("" for the server's own); what the caller
	// creates records it.
	ID string
	// All lets the caller see and act on what every identity created.
	All bool
}

// Server is the server's own identity: it owns what is created under it and
// sees everything.
var Server = Caller{All: true}

type key struct{}

// With returns ctx carrying c.
func With(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, key{}, c)
}

// Of returns the caller ctx carries, or Server when it carries none.
func Of(ctx context.Context) Caller {
	if c, ok := ctx.Value(key{}).(Caller); ok {
		return c
	}
	return Server
}

// Sees reports whether c may see and act on what owner created.
func (c Caller) Sees(owner string) bool { return c.All || c.ID == owner }
