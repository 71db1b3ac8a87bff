package render

import (
	"context"
	"encoding/json"

	"github.com/triage-dev/triage/internal/jsoncut"
	"github.com/triage-dev/triage/internal/store"
)

// Keep stores a call's answer as an output of its own, its text the
// output and its structured answer kept beside it (cut as every kept
// answer is), for what no run's output holds: a repeat's tally over its
// runs, a bisect's steps. The id is the entry's; "" with the store's
// error, which the answer does not depend on.
func Keep(ctx context.Context, st *store.Store, m store.Meta, text string, f store.Final, answer any) (string, error) {
	if b, err := json.Marshal(answer); err == nil {
		f.Result = jsoncut.Bound(b, store.MaxResultBytes)
	}
	return st.Put(context.WithoutCancel(ctx), m, text, f)
}
