package defaults

import (
	"encoding/json"
	"testing"

	"github.com/triage-dev/triage/internal/fault"
)

// FuzzMerge checks the merge's invariants on arbitrary argument objects: it
// never panics, errors are usage errors, explicit arguments win, and the
// result never holds both sides of an exclusive pair.
func FuzzMerge(f *testing.F) {
	f.Add(`{"scheme":"S","project_path":"/p"}`, `{"workspace_path":"/w","scheme":"D"}`)
	f.Add(`{"project_path":"/a","workspace_path":"/b"}`, `{}`)
	f.Add(`{"env":{"A":"1"}}`, `{"env":{"A":"2","B":"3"}}`)
	f.Add(`{"scheme":null,"simulator_name":""}`, `{"simulator_id":"X"}`)
	fields := FieldsOf[buildArgs]()
	f.Fuzz(func(t *testing.T, explicitJSON, defsJSON string) {
		var explicit map[string]any
		if json.Unmarshal([]byte(explicitJSON), &explicit) != nil {
			return
		}
		var defs Values
		if json.Unmarshal([]byte(defsJSON), &defs) != nil {
			return
		}
		merged, err := Merge(explicit, defs, fields, buildReq)
		if err != nil {
			if !fault.Is(err, fault.KindUsage) {
				t.Fatalf("non-usage error: %v", err)
			}
			return
		}
		for k, v := range explicit {
			if isEmpty(v) || k == "env" {
				continue
			}
			if got, _ := json.Marshal(merged[k]); string(got) != mustJSON(v) {
				t.Fatalf("explicit %s=%v lost: merged %v", k, v, merged[k])
			}
		}
		for _, p := range ExclusivePairs {
			_, a := merged[p[0]]
			_, b := merged[p[1]]
			if a && b {
				t.Fatalf("both %s and %s in %v", p[0], p[1], merged)
			}
		}
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
