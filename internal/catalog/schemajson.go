package catalog

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaJSON encodes s as the schema package's own MarshalJSON does, byte
// for byte, in one pass: tools/list's schemas are encoded by it, once a
// process. The package's encoder marshals each nested schema
// through encoding/json again, which re-reads the bytes of every level
// below it: tools/list's schemas cost a cold start about 2 ms that way,
// more than making them. The server's TestSchemaJSONMatchesTheSchemaPackage
// holds the two to the same bytes for every tool's schemas.
func SchemaJSON(s *jsonschema.Schema) (json.RawMessage, error) {
	return appendSchema(make([]byte, 0, 1024), s)
}

// schemaField is a field of jsonschema.Schema that its encoder writes
// under its own name: every field tagged with a name, but those written
// first (type, properties, dependencies, items) and the Extra map.
type schemaField struct {
	index     int
	name      json.RawMessage // the quoted key
	omitEmpty bool
}

var schemaFields = sync.OnceValue(func() []schemaField {
	t := reflect.TypeFor[jsonschema.Schema]()
	var fields []schemaField
	for i := range t.NumField() {
		tag := t.Field(i).Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		switch name {
		case "", "-", "type", "properties", "dependencies", "items":
			continue
		}
		key, _ := json.Marshal(name)
		fields = append(fields, schemaField{index: i, name: key, omitEmpty: strings.Contains(opts, "omitempty")})
	}
	return fields
})

func appendSchema(b []byte, s *jsonschema.Schema) ([]byte, error) {
	if s == nil {
		return append(b, "null"...), nil
	}
	start := len(b)
	w := &objectWriter{b: append(b, '{')}
	w.leading(s)
	v := reflect.ValueOf(s).Elem()
	for _, f := range schemaFields() {
		if fv := v.Field(f.index); !f.omitEmpty || !isEmpty(fv) {
			w.put(string(f.name), func(b []byte) ([]byte, error) { return appendField(b, fv) })
		}
	}
	if len(s.Extra) > 0 && w.err == nil {
		var extra []byte
		if extra, w.err = json.Marshal(s.Extra); w.err == nil {
			w.comma()
			w.b = append(w.b, extra[1:len(extra)-1]...)
		}
	}
	if w.err != nil {
		return nil, w.err
	}
	return trueOrFalse(append(w.b, '}'), start), nil
}

// objectWriter writes a JSON object's members into b, keeping the first
// error.
type objectWriter struct {
	b   []byte
	err error
}

func (w *objectWriter) comma() {
	if w.b[len(w.b)-1] != '{' {
		w.b = append(w.b, ',')
	}
}

// put writes the member key (quoted) with the value value appends.
func (w *objectWriter) put(key string, value func([]byte) ([]byte, error)) {
	if w.err != nil {
		return
	}
	w.comma()
	w.b = append(append(w.b, key...), ':')
	w.b, w.err = value(w.b)
}

// leading writes the members the schema package writes first: type,
// properties (in their order), dependencies and items.
func (w *objectWriter) leading(s *jsonschema.Schema) {
	switch {
	case s.Type != "":
		w.put(`"type"`, func(b []byte) ([]byte, error) { return appendValue(b, s.Type) })
	case s.Types != nil:
		w.put(`"type"`, func(b []byte) ([]byte, error) { return appendValue(b, s.Types) })
	}
	if s.Properties != nil {
		w.put(`"properties"`, func(b []byte) ([]byte, error) { return appendProperties(b, s.Properties, s.PropertyOrder) })
	}
	if len(s.DependencySchemas)+len(s.DependencyStrings) > 0 {
		dep := map[string]any{}
		for k, v := range s.DependencySchemas {
			dep[k] = v
		}
		for k, v := range s.DependencyStrings {
			dep[k] = v
		}
		w.put(`"dependencies"`, func(b []byte) ([]byte, error) { return appendValue(b, dep) })
	}
	switch {
	case s.Items != nil:
		w.put(`"items"`, func(b []byte) ([]byte, error) { return appendSchema(b, s.Items) })
	case s.ItemsArray != nil:
		w.put(`"items"`, func(b []byte) ([]byte, error) { return appendSchemas(b, s.ItemsArray) })
	}
}

// trueOrFalse writes the schemas {} and {"not": true} (which b holds from
// start) as true and false, as the schema package does.
func trueOrFalse(b []byte, start int) []byte {
	switch string(b[start:]) {
	case `{}`:
		return append(b[:start], "true"...)
	case `{"not":true}`:
		return append(b[:start], "false"...)
	}
	return b
}

// appendField writes a field's value: nested schemas by appendSchema,
// anything else as encoding/json writes it.
func appendField(b []byte, v reflect.Value) ([]byte, error) {
	switch x := v.Interface().(type) {
	case *jsonschema.Schema:
		return appendSchema(b, x)
	case []*jsonschema.Schema:
		return appendSchemas(b, x)
	case map[string]*jsonschema.Schema:
		return appendProperties(b, x, nil)
	default:
		return appendValue(b, x)
	}
}

func appendSchemas(b []byte, list []*jsonschema.Schema) ([]byte, error) {
	if list == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	var err error
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendSchema(b, s); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// appendProperties writes a map of schemas with the keys of order first,
// in that order, then the others sorted.
func appendProperties(b []byte, props map[string]*jsonschema.Schema, order []string) ([]byte, error) {
	b = append(b, '{')
	var err error
	entry := func(k string) {
		if b[len(b)-1] != '{' {
			b = append(b, ',')
		}
		if b, err = appendValue(b, k); err == nil {
			b = append(b, ':')
			b, err = appendSchema(b, props[k])
		}
	}
	done := make(map[string]bool, len(order))
	for _, k := range order {
		if _, ok := props[k]; ok && !done[k] && err == nil {
			entry(k)
			done[k] = true
		}
	}
	rest := make([]string, 0, len(props)-len(done))
	for k := range props {
		if !done[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		if err == nil {
			entry(k)
		}
	}
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

func appendValue(b []byte, v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, data...), nil
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}
