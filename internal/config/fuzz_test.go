package config

import (
	"strings"
	"testing"
)

// FuzzParse: any input either parses or fails with an error naming the file;
// it never panics.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"workflows: [run]\n",
		"defaults:\n  scheme: App\n  env: {A: '1'}\nprofiles:\n  ci: {timeout_s: 3}\n",
		"timeouts: {run: 10m}\nstore: {max_size_mb: 5}\n",
		"- a\n", "{", "defaults: [1, 2]\n", "profiles:\n  x:\n    env: 3\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		c, err := Parse("fuzz.yaml", []byte(body))
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		_ = c.Validate()
	})
}
