package jsoncut

import (
	"encoding/json"
	"strings"
	"testing"
)

// Bound cuts the biggest lists and strings until the result fits,
// keeps it valid JSON of the same shape, and says what it cut.
func TestBoundStructured(t *testing.T) {
	var items []map[string]any
	for i := range 5000 {
		items = append(items, map[string]any{"line": i, "text": strings.Repeat("x", 40)})
	}
	in, _ := json.Marshal(map[string]any{
		"verdict": "FAILED", "matches": items, "note": strings.Repeat("é", 30000), "small": []int{1, 2, 3},
	})
	out := Bound(in, 16<<10)
	if len(out) > 16<<10 {
		t.Fatalf("%d bytes, want at most %d", len(out), 16<<10)
	}
	var got struct {
		Verdict string           `json:"verdict"`
		Matches []map[string]any `json:"matches"`
		Note    string           `json:"note"`
		Small   []int            `json:"small"`
		Cut     []string         `json:"_cut"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("not JSON after the cut: %v", err)
	}
	if got.Verdict != "FAILED" || len(got.Small) != 3 || len(got.Matches) == 0 || got.Matches[0]["line"] != float64(0) {
		t.Errorf("what fits was cut: %+v", got)
	}
	if !strings.HasSuffix(got.Note, "…") || !json.Valid([]byte(`"`+got.Note+`"`)) {
		t.Errorf("note not cut on a rune boundary with a marker: %.40q", got.Note)
	}
	joined := strings.Join(got.Cut, "\n")
	if !strings.Contains(joined, "matches: the first ") || !strings.Contains(joined, "of 5000 elements") || !strings.Contains(joined, "note: the first ") {
		t.Errorf("_cut = %q", got.Cut)
	}
	if small, _ := json.Marshal(map[string]any{"a": 1}); string(Bound(small, 16<<10)) != string(small) {
		t.Error("a result within the bound was changed")
	}
}
