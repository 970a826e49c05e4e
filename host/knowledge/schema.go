package knowledge

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// StepRecordSchema is the StepRecord JSON Schema v1 (draft-07) every
// record is checked against, with the optional labels array of the
// knowledge store.
//
//go:embed steprecord.v1.schema.json
var StepRecordSchema []byte

const schemaURL = "https://mmcp.invalid/knowledge/steprecord.v1.schema.json"

var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(StepRecordSchema))
	if err != nil {
		return nil, fmt.Errorf("parse steprecord schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("add steprecord schema: %w", err)
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("compile steprecord schema: %w", err)
	}
	return sch, nil
})

// noLoader refuses every external reference: the schema is self-contained.
type noLoader struct{}

// Load refuses url.
func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema %q not allowed", url)
}

// ValidateRecord checks that b is a StepRecord that conforms to
// StepRecordSchema. The schema is compiled once per process.
func ValidateRecord(b []byte) error {
	sch, err := compiledSchema()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("step record is not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("step record does not match schema v1: %w", err)
	}
	return nil
}
