package sdk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// Schema is a compiled tool input schema.
type Schema struct{ s *jsonschema.Schema }

// CompileSchema compiles one tool's input schema. It fails for a schema that
// is not valid JSON Schema or not an object schema ("type": "object").
func CompileSchema(name string, raw json.RawMessage) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema of %s is not JSON: %w", name, err)
	}
	if m, ok := doc.(map[string]any); !ok || m["type"] != "object" {
		return nil, fmt.Errorf("schema of %s must be a JSON object schema with \"type\": \"object\"", name)
	}
	c := jsonschema.NewCompiler()
	url := "mmcp:///tools/" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema of %s: %w", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", name, err)
	}
	return &Schema{s: s}, nil
}

// Validate checks the arguments of a call of tool against the schema. A
// violation is MM_INVALID_INPUT whose details name the offending field
// ("field") and list every problem ("errors").
func (sc *Schema) Validate(tool string, args json.RawMessage) *Error {
	s := sc.s
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return Errorf(CodeInvalidInput, "arguments of %s are not valid JSON: %w", tool, err)
	}
	err = s.Validate(inst)
	if err == nil {
		return nil
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return Errorf(CodeInvalidInput, "%s: %w", tool, err)
	}
	var problems []map[string]any
	collect(verr, &problems)
	if len(problems) == 0 {
		problems = append(problems, map[string]any{"field": "", "message": verr.Error()})
	}
	first := problems[0]
	msg := fmt.Sprintf("invalid input for %s: %s", tool, first["message"])
	if f, _ := first["field"].(string); f != "" {
		msg = fmt.Sprintf("invalid input for %s: %s: %s", tool, f, first["message"])
	}
	return Errorf(CodeInvalidInput, "%s", msg).WithDetails(map[string]any{
		"field": first["field"], "errors": problems,
	})
}

// collect flattens the leaves of a validation error into {field, message}.
func collect(e *jsonschema.ValidationError, out *[]map[string]any) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collect(c, out)
		}
		return
	}
	base := strings.Join(e.InstanceLocation, ".")
	join := func(f string) string {
		if base == "" {
			return f
		}
		return base + "." + f
	}
	msg := e.ErrorKind.LocalizedString(printer)
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		props := append([]string(nil), k.Properties...)
		sort.Strings(props)
		for _, p := range props {
			*out = append(*out, map[string]any{"field": join(p), "message": "unknown property " + p + " (additionalProperties is false)"})
		}
		return
	case *kind.Required:
		for _, p := range k.Missing {
			*out = append(*out, map[string]any{"field": join(p), "message": "missing required property " + p})
		}
		return
	// The value itself is never repeated: it may be a secret (a malformed
	// private key) or huge.
	case *kind.Pattern:
		msg = fmt.Sprintf("value (%d chars) does not match pattern %s", len([]rune(k.Got)), k.Want)
	case *kind.Format:
		msg = "value is not a valid " + k.Want
	}
	*out = append(*out, map[string]any{"field": base, "message": msg})
}
