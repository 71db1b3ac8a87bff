package defaults

import (
	"reflect"
	"strings"
)

// jsonFields lists the JSON names of a struct value's exported fields,
// following embedded structs.
func jsonFields(v any) []string {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	return fieldsOfType(t)
}

func fieldsOfType(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		// encoding/json promotes the fields of embedded structs, exported
		// or not; other unexported fields are invisible to it.
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, fieldsOfType(f.Type)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}
