package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/triage-dev/triage/internal/defaults"
)

// Argument errors are written from the tool's input schema by one rule for
// every tool, so that the answer to a wrong call is enough to make the right
// one: an unknown argument gets the names the tool takes (unlisted ones
// included, since a call may pass them) and the nearest of them; a wrong type
// names the argument, the type it takes and what was given; a missing
// required argument names itself, its type, and the session default that
// would supply it where there is one.

// checkArgs reports every problem of args against the tool's input schema
// that it can put in words, joined in one usage message; nil when it finds
// none (the schema validator still runs after it).
func (t *Tool) checkArgs(args map[string]any) error {
	s := t.InputSchema()
	var problems []string
	for _, name := range sortedKeys(args) {
		problems = append(problems, tooLong(name, args[name])...)
		prop := s.Properties[name]
		if prop == nil {
			if s.AdditionalProperties != nil {
				problems = append(problems, t.unknownArgument(name))
			}
			continue
		}
		if want := typeProblem(prop, args[name]); want != "" {
			problems = append(problems, fmt.Sprintf("%s: expected %s, got %s", name, want, shortJSON(args[name])))
		}
	}
	for _, name := range s.Required {
		if _, ok := args[name]; !ok {
			problems = append(problems, missingArgument(name, s.Properties[name]))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	if len(problems) > 1 {
		return errors.New("invalid arguments:\n- " + strings.Join(problems, "\n- "))
	}
	return errors.New(problems[0])
}

// nearestShort is nearest for a name short enough to be a misspelling (the
// distance costs its length times each name's).
func nearestShort(name string, names []string) string {
	if len(name) > 80 {
		return ""
	}
	return nearest(name, names)
}

// Misspelt returns the one of names that name most likely misspells — the
// same words in another case or separator, or a small edit distance — or ""
// when none is that close: a did-you-mean for an unknown tool name
// (debug_attach for debug_atach).
func Misspelt(name string, names []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(s))
	}
	n := norm(name)
	if n == "" || len(name) > 80 {
		return ""
	}
	best, bestD := "", 1<<30
	for _, c := range names {
		cn := norm(c)
		if d := editDistance(n, cn); d <= max(1, min(len(n), len(cn))/3) && d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func (t *Tool) unknownArgument(name string) string {
	names := t.argumentNames()
	msg := fmt.Sprintf("unknown argument %q;", clipName(name))
	if near := nearestShort(name, names); near != "" {
		msg = fmt.Sprintf("unknown argument %q: did you mean %q?", clipName(name), near)
	}
	if len(names) == 0 {
		return msg + " " + t.Name + " takes no arguments"
	}
	return msg + " " + t.Name + " takes: " + strings.Join(names, ", ")
}

// argumentNames lists every input property in declaration order, unlisted
// ones included.
func (t *Tool) argumentNames() []string {
	s := t.InputSchema()
	names := make([]string, 0, len(s.Properties))
	for _, n := range s.PropertyOrder {
		if s.Properties[n] != nil {
			names = append(names, n)
		}
	}
	for _, n := range sortedKeys(s.Properties) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

func missingArgument(name string, prop *jsonschema.Schema) string {
	msg := fmt.Sprintf("missing required argument %q", name)
	if want := typeName(prop); want != "" {
		msg += " (" + want + ")"
	}
	if defaults.IsKey(name) {
		msg += fmt.Sprintf(": pass it, or set it once with session_set_defaults {%q: ...}", name)
	}
	return msg
}

// typeProblem returns the expected type, in words, when v does not have the
// type prop gives; "" when it does or prop names no type.
func typeProblem(prop *jsonschema.Schema, v any) string {
	if prop == nil || prop.Type == "" || hasType(prop, v) {
		return ""
	}
	return typeName(prop)
}

func hasType(prop *jsonschema.Schema, v any) bool {
	switch prop.Type {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == float64(int64(f))
	case "array":
		list, ok := v.([]any)
		if !ok {
			return false
		}
		for _, e := range list {
			if prop.Items != nil && prop.Items.Type != "" && !hasType(prop.Items, e) {
				return false
			}
		}
		return true
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for _, e := range obj {
			if ap := prop.AdditionalProperties; ap != nil && ap.Type != "" && !hasType(ap, e) {
				return false
			}
		}
		return true
	}
	return true
}

// typeName says in words what a schema takes: "a number", "an array of
// strings", "an object of strings".
func typeName(prop *jsonschema.Schema) string {
	if prop == nil {
		return ""
	}
	switch prop.Type {
	case "string":
		return "a string"
	case "boolean":
		return "true or false"
	case "number":
		return "a number"
	case "integer":
		return "an integer"
	case "array":
		if prop.Items != nil && prop.Items.Type != "" {
			return "an array of " + plural(prop.Items)
		}
		return "an array"
	case "object":
		if ap := prop.AdditionalProperties; ap != nil && ap.Type != "" {
			return "an object of " + plural(ap)
		}
		return "an object"
	}
	return ""
}

func plural(s *jsonschema.Schema) string {
	switch s.Type {
	case "boolean":
		return "booleans"
	case "array", "object":
		return strings.TrimPrefix(strings.TrimPrefix(typeName(s), "an "), "a ") + "s"
	}
	return s.Type + "s"
}

// shortJSON shows a given value as JSON, cut to a length a message can carry.
func shortJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const max = 60
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// nearest returns the name of names that name most likely misspells or
// shortens, or "" when none is close: the same words in another case or
// separator (projectDir, project-dir), a small edit distance (scheme for
// shceme), or one of its words or a common prefix (dir, project for
// project_dir; timeout for timeout_s).
func nearest(name string, names []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(s))
	}
	n := norm(name)
	if n == "" {
		return ""
	}
	best, bestScore := "", 1<<30
	for _, c := range names {
		cn := norm(c)
		score := 1 << 30
		switch d := editDistance(n, cn); {
		case cn == n:
			score = 0
		case d <= max(1, min(len(n), len(cn))/3):
			score = 10 + d
		case isWordOf(strings.ToLower(strings.ReplaceAll(name, "-", "_")), c):
			score = 100 + len(c) - len(name)
		case commonPrefix(n, cn) >= 4:
			score = 200 - commonPrefix(n, cn)
		}
		if score < bestScore {
			best, bestScore = c, score
		}
	}
	return best
}

// isWordOf reports whether one of a and b is made of whole "_"-separated
// words of the other: dir of project_dir, project_dir of dir.
func isWordOf(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) < 2 {
		return false
	}
	return strings.HasPrefix(b, a+"_") || strings.HasSuffix(b, "_"+a) || strings.Contains(b, "_"+a+"_")
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of adjacent bytes.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
