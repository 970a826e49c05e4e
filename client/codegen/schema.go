package codegen

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// structDecl is a generated struct type.
type structDecl struct {
	name   string
	doc    []string
	fields []field
}

// field is one field of a generated struct.
type field struct {
	name string // Go name
	json string // JSON name
	typ  string // Go type
	omit bool   // omitempty
	doc  []string
}

// typer derives Go types from JSON Schema, collecting the struct types it
// needs on the way.
type typer struct {
	structs []structDecl
	unions  []unionDecl
	named   []namedDecl
	names   map[string]string // declared type name -> what declared it
	// defs are the definitions ("definitions" or "$defs") of the tool
	// schema being rendered, for "$ref"s.
	defs map[string]any
	// refs are the types made from definitions, by Go name: a definition
	// shared by several tools becomes one type.
	refs map[string]refType
}

// refType is the type a definition became.
type refType struct {
	schema string // the definition, as JSON, to tell a clash from a share
	ptr    bool
}

// namedDecl is a named non-struct type: type Name Under.
type namedDecl struct {
	name, under string
	doc         []string
}

// unionDecl is a oneOf: a struct with one pointer field per alternative
// and a MarshalJSON that encodes the one set.
type unionDecl struct {
	name   string
	doc    []string
	fields []field
}

// setDefs makes the definitions of a tool's input schema the target of
// its "$ref"s.
func (ty *typer) setDefs(schema map[string]any) {
	ty.defs = map[string]any{}
	for _, k := range []string{"definitions", "$defs"} {
		if d, ok := schema[k].(map[string]any); ok {
			for n, v := range d {
				ty.defs[n] = v
			}
		}
	}
}

// ref returns the named type of a local "$ref" (#/definitions/X or
// #/$defs/X): the type X, declared once and shared by every tool whose
// definition of X is the same. An unknown or remote ref is any.
func (ty *typer) ref(ref, owner string) (string, bool, error) {
	var def map[string]any
	var name string
	for _, p := range []string{"#/definitions/", "#/$defs/"} {
		if strings.HasPrefix(ref, p) {
			name = strings.TrimPrefix(ref, p)
			def, _ = ty.defs[name].(map[string]any)
		}
	}
	if def == nil {
		return "any", false, nil
	}
	tname := goName(name)
	canon := jsonText(def)
	if prev, ok := ty.refs[tname]; ok {
		if prev.schema != canon {
			return "", false, fmt.Errorf("definition %s of %s differs from another tool's definition of the same name", name, owner)
		}
		return tname, prev.ptr, nil
	}
	doc := []string{tname + " is the definition " + quoteName(name) + "."}
	doc = append(doc, propDoc(def)...)
	var ptr bool
	switch {
	case def["oneOf"] != nil:
		if err := ty.union(tname, owner, doc, def); err != nil {
			return "", false, err
		}
		ptr = true
	case schemaType(def) == "object" && len(mapOf(def["properties"])) > 0:
		if _, err := ty.object(tname, owner, doc, def, ""); err != nil {
			return "", false, err
		}
		ptr = true
	default:
		under, p, err := ty.goType(tname+"Value", owner, def)
		if err != nil {
			return "", false, err
		}
		if err := ty.declare(tname, owner); err != nil {
			return "", false, err
		}
		ty.named = append(ty.named, namedDecl{name: tname, under: under, doc: doc})
		ptr = p
	}
	ty.refs[tname] = refType{schema: canon, ptr: ptr}
	return tname, ptr, nil
}

// union declares name for a oneOf: one pointer field per alternative,
// named after its kind (String, Int, Number, Bool, Array, Object).
func (ty *typer) union(name, owner string, doc []string, schema map[string]any) error {
	if err := ty.declare(name, owner); err != nil {
		return err
	}
	alts, _ := schema["oneOf"].([]any)
	u := unionDecl{name: name, doc: append(doc, "Set exactly one field.")}
	seen := map[string]bool{}
	for _, a := range alts {
		as, _ := a.(map[string]any)
		kind := map[string]string{"string": "String", "integer": "Int", "number": "Number", "boolean": "Bool", "array": "Array", "object": "Object"}[schemaType(as)]
		if kind == "" || seen[kind] {
			kind = fmt.Sprintf("Alt%d", len(u.fields)+1)
		}
		seen[kind] = true
		typ, _, err := ty.goType(name+kind, owner, as)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(typ, "[]") && !strings.HasPrefix(typ, "map[") && typ != "any" {
			typ = "*" + typ
		}
		u.fields = append(u.fields, field{name: kind, typ: typ, doc: propDoc(as)})
	}
	ty.unions = append(ty.unions, u)
	return nil
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// declare reserves a type name or reports a collision.
func (ty *typer) declare(name, owner string) error {
	if prev, ok := ty.names[name]; ok {
		return fmt.Errorf("type name %s of %s collides with %s", name, owner, prev)
	}
	ty.names[name] = owner
	return nil
}

// object builds the struct name for an object schema with properties,
// skipping the property skip (the injected session key; "" for none).
func (ty *typer) object(name, owner string, doc []string, schema map[string]any, skip string) (int, error) {
	if err := ty.declare(name, owner); err != nil {
		return 0, err
	}
	props, _ := schema["properties"].(map[string]any)
	required := map[string]bool{}
	if rs, ok := schema["required"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		if k != skip {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	decl := structDecl{name: name, doc: doc}
	used := map[string]string{}
	for _, k := range keys {
		ps, _ := props[k].(map[string]any)
		fname := goName(k)
		if prev, ok := used[fname]; ok {
			return 0, fmt.Errorf("%s: properties %q and %q both map to field %s", owner, prev, k, fname)
		}
		used[fname] = k
		typ, ptr, err := ty.goType(name+fname, owner+"."+k, ps)
		if err != nil {
			return 0, err
		}
		f := field{name: fname, json: k, typ: typ, doc: propDoc(ps)}
		if !required[k] {
			f.omit = true
			if ptr {
				f.typ = "*" + typ
			}
		}
		decl.fields = append(decl.fields, f)
	}
	ty.structs = append(ty.structs, decl)
	return len(decl.fields), nil
}

// goType returns the Go type for schema and whether an optional value of
// it needs a pointer to be left out when unset. name is the type name to
// use if the schema needs a struct.
func (ty *typer) goType(name, owner string, schema map[string]any) (string, bool, error) {
	if schema == nil {
		return "any", false, nil
	}
	if ref, ok := schema["$ref"].(string); ok {
		return ty.ref(ref, owner)
	}
	if schema["oneOf"] != nil && schema["type"] == nil {
		if err := ty.union(name, owner, []string{name + " is the " + quoteName(owner) + " value."}, schema); err != nil {
			return "", false, err
		}
		return name, true, nil
	}
	switch schemaType(schema) {
	case "string":
		return "string", true, nil
	case "boolean":
		return "bool", true, nil
	case "number":
		return "float64", true, nil
	case "integer":
		return "int64", true, nil
	case "array":
		items, _ := schema["items"].(map[string]any)
		if items == nil {
			return "[]any", false, nil
		}
		elem, _, err := ty.goType(name+"Item", owner+"[]", items)
		if err != nil {
			return "", false, err
		}
		return "[]" + elem, false, nil
	case "object":
		if props, ok := schema["properties"].(map[string]any); ok && len(props) > 0 {
			if _, err := ty.object(name, owner, []string{name + " is the " + quoteName(owner) + " object."}, schema, ""); err != nil {
				return "", false, err
			}
			return name, true, nil
		}
		if ap, ok := schema["additionalProperties"].(map[string]any); ok {
			elem, _, err := ty.goType(name+"Value", owner+"{}", ap)
			if err != nil {
				return "", false, err
			}
			return "map[string]" + elem, false, nil
		}
		return "map[string]any", false, nil
	}
	return "any", false, nil
}

// schemaType returns the schema's single type, treating ["T", "null"] as
// T, inferring string from a string enum; "" when unknown or mixed.
func schemaType(schema map[string]any) string {
	switch t := schema["type"].(type) {
	case string:
		return t
	case []any:
		var types []string
		for _, e := range t {
			if s, ok := e.(string); ok && s != "null" {
				types = append(types, s)
			}
		}
		if len(types) == 1 {
			return types[0]
		}
		return ""
	}
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		for _, e := range enum {
			if _, ok := e.(string); !ok {
				return ""
			}
		}
		return "string"
	}
	if _, ok := schema["properties"].(map[string]any); ok {
		return "object"
	}
	return ""
}

// propDoc is the godoc of a property: its description, enum values and
// default.
func propDoc(schema map[string]any) []string {
	var doc []string
	if d, ok := schema["description"].(string); ok && strings.TrimSpace(d) != "" {
		doc = append(doc, splitLines(d)...)
	}
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		vals := make([]string, len(enum))
		for i, e := range enum {
			vals[i] = jsonText(e)
		}
		doc = append(doc, "One of: "+strings.Join(vals, ", ")+".")
	}
	if def, ok := schema["default"]; ok {
		doc = append(doc, "Default: "+jsonText(def)+".")
	}
	return doc
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		out = append(out, strings.TrimRight(l, " \t\r"))
	}
	return out
}

func quoteName(s string) string { return "\"" + s + "\"" }
