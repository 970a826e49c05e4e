package builtin

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/host/tools"
)

// builtins registers every built-in tool (plugins' tools aside) on a
// fresh runner, as Register does.
func builtins(t *testing.T) (*reg, *tools.Runner) {
	t.Helper()
	r := tools.NewRunner(hclog.NewNullLogger())
	g := &reg{Deps: Deps{Prefix: "mm", Log: hclog.NewNullLogger()}, r: r}
	if err := g.builtinTools(); err != nil {
		t.Fatal(err)
	}
	return g, r
}

// builtinTools is every built-in tool (plugins' tools aside).
func builtinTools(t *testing.T) []*tools.Tool {
	_, r := builtins(t)
	return r.Tools()
}

// schemaProp is the part of a property's JSON Schema the Go side must
// agree with.
type schemaProp struct {
	Type    any             `json:"type"`
	Default json.RawMessage `json:"default"`
}

// jsonFields lists a struct's fields by their JSON names (embedded structs
// flattened, "-" left out).
func jsonFields(typ reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		// encoding/json promotes the fields of an embedded struct, an
		// unexported one's too.
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// kindFits reports whether a Go type can hold a JSON Schema type.
func kindFits(schemaType string, typ reflect.Type) bool {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ == reflect.TypeFor[json.RawMessage]() || typ.Kind() == reflect.Interface {
		return true
	}
	switch schemaType {
	case "string":
		return typ.Kind() == reflect.String
	case "integer":
		switch typ.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			return true
		}
	case "number":
		switch typ.Kind() {
		case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int64:
			return true
		}
	case "boolean":
		return typ.Kind() == reflect.Bool
	case "array":
		return typ.Kind() == reflect.Slice
	case "object":
		return typ.Kind() == reflect.Struct || typ.Kind() == reflect.Map
	}
	return false
}

// sharedField lists Go fields a tool's schema lacks on purpose: click,
// type, wait_for and get_text share one input struct (targetInput) and
// only type takes text.
var sharedField = map[string]bool{"mm_click.text": true, "mm_wait_for.text": true, "mm_get_text.text": true}

// TestInputStructsAgreeWithSchemas: every built-in tool decoded by
// tools.Add has a Go input struct whose JSON fields are exactly its
// schema's properties, each of a type the schema's type fits, and whose
// schema defaults decode into those fields. A property only in the schema
// would be accepted and silently ignored; a field only in Go could never
// be set.
func TestInputStructsAgreeWithSchemas(t *testing.T) {
	checked := 0
	for _, tool := range builtinTools(t) {
		if tool.Input == nil {
			continue
		}
		in := tool.Input
		for in.Kind() == reflect.Pointer {
			in = in.Elem()
		}
		if in.Kind() != reflect.Struct || in.NumField() == 0 {
			continue // a map takes any property; struct{} decodes nothing
		}
		checked++
		var schema struct {
			Properties map[string]schemaProp `json:"properties"`
		}
		if err := json.Unmarshal(tool.Schema, &schema); err != nil {
			t.Errorf("%s: schema: %v", tool.Name, err)
			continue
		}
		// encoding/json matches names case-insensitively.
		fields := map[string]reflect.Type{}
		for name, ft := range jsonFields(in) {
			fields[strings.ToLower(name)] = ft
		}
		var names []string
		for name := range schema.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			prop := schema.Properties[name]
			ft, ok := fields[strings.ToLower(name)]
			if !ok {
				t.Errorf("%s: schema property %q has no field in %s", tool.Name, name, in)
				continue
			}
			if st, ok := prop.Type.(string); ok && !kindFits(st, ft) {
				t.Errorf("%s: property %q is %s in the schema, %s in Go", tool.Name, name, st, ft)
			}
			if len(prop.Default) > 0 {
				v := reflect.New(ft)
				if err := json.Unmarshal(prop.Default, v.Interface()); err != nil {
					t.Errorf("%s: default of %q (%s) does not decode into %s: %v", tool.Name, name, prop.Default, ft, err)
				}
			}
		}
		props := map[string]bool{}
		for name := range schema.Properties {
			props[strings.ToLower(name)] = true
		}
		for name := range fields {
			if !props[name] && !sharedField[tool.Name+"."+name] {
				t.Errorf("%s: Go field %q of %s is not in the schema", tool.Name, name, in)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d tools checked: are the built-in tools registered with tools.Add?", checked)
	}
}
