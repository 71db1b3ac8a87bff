package wire

import "github.com/triage-dev/triage/internal/observe"

// TracedValue is one expression's value at a tracepoint's hit.
type TracedValue struct {
	Expr  string `json:"expr"`
	Value string `json:"value"`
}

// TracepointHits is what one tracepoint recorded.
type TracepointHits struct {
	Location     string        `json:"location"`
	Condition    string        `json:"condition,omitempty"`
	Hits         int           `json:"hits" jsonschema:"hits recorded"`
	LimitReached bool          `json:"limit_reached,omitempty" jsonschema:"later hits were not recorded"`
	First        []TracedValue `json:"first,omitempty"`
	Last         []TracedValue `json:"last,omitempty"`
}

// TracepointsOf converts an observed run's hits.
func TracepointsOf(hs []observe.Hits) []TracepointHits {
	return list(hs, func(h observe.Hits) TracepointHits {
		return TracepointHits{Location: h.Location, Condition: h.Condition, Hits: h.Hits, LimitReached: h.LimitReached,
			First: valuesOf(h.First), Last: valuesOf(h.Last)}
	})
}

// valuesOf keeps an empty list empty (not absent), as recorded.
func valuesOf(vs []observe.Value) []TracedValue {
	out := make([]TracedValue, len(vs))
	for i, v := range vs {
		out[i] = TracedValue(v)
	}
	return out
}
