package identity

import (
	"context"
	"testing"
)

// A context without a caller is the server's own identity, which sees what
// everyone created; a token's identity sees its own only.
func TestCallerOfContext(t *testing.T) {
	if c := Of(context.Background()); c != Server || !c.Sees("token:a") || !c.Sees("") {
		t.Errorf("no caller: %+v, want the server's own identity seeing everything", c)
	}
	a := Of(With(context.Background(), Caller{ID: "token:a"}))
	if a.ID != "token:a" || !a.Sees("token:a") || a.Sees("token:b") || a.Sees("") {
		t.Errorf("token caller %+v: want it to see its own outputs only", a)
	}
}
