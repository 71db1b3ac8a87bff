package catalog

import (
	"encoding"
	"reflect"
	"strings"
)

var textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()

// ResultField is one field of a tool's structured result, nested fields
// named by their dotted path ("verdict.hints[].tool").
type ResultField struct {
	Path        string
	Type        string
	Description string
}

// ResultFields lists every field a tool's structured result can hold, in
// declaration order, nested records included. tools/list names only the
// top-level fields (see outputSchema); this is the whole public shape, for
// the reference in docs/TOOLS.md, so that a change to any of it shows there.
func (t *Tool) ResultFields() []ResultField {
	out := t.Out
	for out.Kind() == reflect.Pointer {
		out = out.Elem()
	}
	var fields []ResultField
	walkFields(&fields, "", out, map[reflect.Type]bool{})
	return fields
}

// walkFields appends t's fields under prefix. A type met again below itself
// (a debugger variable's children) is named, not expanded again.
func walkFields(fields *[]ResultField, prefix string, t reflect.Type, open map[reflect.Type]bool) {
	open[t] = true
	defer delete(open, t)
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		ft, suffix := elemType(f.Type)
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			walkFields(fields, prefix, ft, open)
			continue
		}
		if name == "" {
			name = f.Name
		}
		path := prefix + name + suffix
		typ := fieldType(f.Type)
		if isRecord(ft) && open[ft] {
			typ += " (as " + strings.TrimSuffix(prefix, ".") + ")"
		}
		*fields = append(*fields, ResultField{Path: path, Type: typ, Description: f.Tag.Get("jsonschema")})
		if isRecord(ft) && !open[ft] {
			walkFields(fields, path+".", ft, open)
		}
	}
}

// elemType is the record a field holds, through pointers, slices and maps,
// and the path suffix that says how: "[]" per slice level, "{}" per map.
func elemType(t reflect.Type) (reflect.Type, string) {
	suffix := ""
	for {
		switch t.Kind() {
		case reflect.Pointer:
			t = t.Elem()
		case reflect.Slice, reflect.Array:
			if t.Elem().Kind() == reflect.Uint8 {
				return t, suffix
			}
			t, suffix = t.Elem(), suffix+"[]"
		case reflect.Map:
			t, suffix = t.Elem(), suffix+"{}"
		default:
			return t, suffix
		}
	}
}

// fieldType is a field's JSON type, a pointer being what it points to.
func fieldType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Interface {
		return "any"
	}
	if t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler) {
		return "string" // encoding/json writes it as its text
	}
	return jsonType(t)
}

// isRecord reports a struct encoded as a JSON object of its fields (not a
// time, which is a string).
func isRecord(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && jsonType(t) == "object"
}
