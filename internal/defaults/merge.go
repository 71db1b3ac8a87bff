package defaults

import (
	"fmt"
	"sort"
	"strings"

	"github.com/triage-dev/triage/internal/fault"
)

// ExclusivePairs are the session-managed fields of which at most one may be used.
var ExclusivePairs = [][2]string{
	{"workspace_path", "project_path"},
	{"simulator_id", "simulator_name"},
	// A build or test runs on a simulator or on a physical device.
	{"simulator_id", "device_id"},
	{"simulator_name", "device_id"},
}

// Requirements is what a session-aware tool needs after defaults are applied.
type Requirements struct {
	// AllOf names fields that must all be present.
	AllOf []string
	// OneOf lists groups of which at least one field must be present.
	OneOf [][]string
}

// settleExclusive drops from merged the default of a pair whose other half
// was given explicitly, and refuses defaults that set both halves.
func settleExclusive(given, merged map[string]any) error {
	for _, p := range ExclusivePairs {
		if _, ok := given[p[0]]; ok {
			if _, explicitOther := given[p[1]]; !explicitOther {
				delete(merged, p[1])
			}
		}
		if _, ok := given[p[1]]; ok {
			if _, explicitOther := given[p[0]]; !explicitOther {
				delete(merged, p[0])
			}
		}
	}
	for _, p := range ExclusivePairs {
		_, a := merged[p[0]]
		_, b := merged[p[1]]
		if a && b { // only defaults can leave both: explicit pairs were refused before
			return fault.Usagef("session defaults set both %s and %s: pass one explicitly, or clear one with session_clear_defaults {\"keys\": [\"%s\"]}", p[0], p[1], p[1])
		}
	}
	return nil
}

// check names what merged lacks of the requirements.
func (req Requirements) check(merged map[string]any) error {
	for _, f := range req.AllOf {
		if _, ok := merged[f]; !ok {
			return missing([]string{f})
		}
	}
	for _, group := range req.OneOf {
		found := false
		for _, f := range group {
			if _, ok := merged[f]; ok {
				found = true
				break
			}
		}
		if !found {
			return missing(group)
		}
	}
	return nil
}

// Merge applies the session defaults defs to a tool call's explicit arguments.
// Fields lists the argument names the tool accepts; only session-managed ones
// among them take defaults. The steps, in order:
//
//  1. null and empty explicit arguments count as absent;
//  2. both sides of an exclusive pair given explicitly is an error naming both;
//  3. defaults are overlaid by explicit arguments (env merged key by key);
//  4. an explicit side of an exclusive pair drops the default's other side;
//  5. a missing requirement is an error naming the field and the
//     session_set_defaults call that would provide it.
//
// The result holds every non-empty argument, explicit or defaulted.
func Merge(explicit map[string]any, defs Values, fields []string, req Requirements) (map[string]any, error) {
	accepts := make(map[string]bool, len(fields))
	for _, f := range fields {
		accepts[f] = true
	}
	given := make(map[string]any, len(explicit))
	for k, v := range explicit {
		if !isEmpty(v) {
			given[k] = v
		}
	}
	for _, p := range ExclusivePairs {
		_, a := given[p[0]]
		_, b := given[p[1]]
		if a && b {
			return nil, fault.Usagef("%s and %s are mutually exclusive: pass only one", p[0], p[1])
		}
	}
	merged := make(map[string]any, len(given))
	for k, v := range defs.Map() {
		if accepts[k] {
			merged[k] = v
		}
	}
	for k, v := range given {
		if k == "env" {
			merged[k] = mergeEnv(merged[k], v)
			continue
		}
		merged[k] = v
	}
	if err := settleExclusive(given, merged); err != nil {
		return nil, err
	}
	if err := req.check(merged); err != nil {
		return nil, err
	}
	return merged, nil
}

// MergeInto is Merge for a typed argument struct: it decodes in's JSON form,
// merges, and returns a copy of in with the merged arguments applied.
// Session-managed fields of T must carry `omitempty` so that zero means absent.
func MergeInto[T any](in T, defs Values, req Requirements) (T, error) {
	explicit, err := toMap(in)
	if err != nil {
		return in, fmt.Errorf("encoding arguments: %w", err)
	}
	merged, err := Merge(explicit, defs, FieldsOf[T](), req)
	if err != nil {
		return in, err
	}
	var out T
	if err := fromMap(merged, &out); err != nil {
		return in, fmt.Errorf("applying defaults: %w", err)
	}
	return out, nil
}

// Filled names the arguments of in that defs would fill: session-managed
// fields of T that in leaves empty and defs sets. A caller that words
// where a value came from (the session default timeout_s) asks it.
func Filled[T any](in T, defs Values) []string {
	explicit, err := toMap(in)
	if err != nil {
		return nil
	}
	var out []string
	set := defs.Map()
	for _, f := range FieldsOf[T]() {
		if _, given := explicit[f]; !given && set[f] != nil {
			out = append(out, f)
		}
	}
	return out
}

// FieldsOf returns the JSON field names of struct type T.
func FieldsOf[T any]() []string {
	var zero T
	return jsonFields(zero)
}

func mergeEnv(def, explicit any) any {
	d, _ := def.(map[string]any)
	e, _ := explicit.(map[string]any)
	out := make(map[string]any, len(d)+len(e))
	for k, v := range d {
		out[k] = v
	}
	for k, v := range e {
		out[k] = v
	}
	return out
}

func missing(group []string) error {
	example := make([]string, len(group))
	for i, f := range group {
		example[i] = fmt.Sprintf("{\"%s\": \"...\"}", f)
	}
	sort.Strings(group)
	what := group[0]
	if len(group) > 1 {
		what = "one of " + strings.Join(group, ", ")
	}
	return fault.Usagef("missing %s: pass it as an argument, or set it once with session_set_defaults %s",
		what, strings.Join(example, " or "))
}
