package knowledge

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mmcp-dev/mmcp/internal/redact"
)

// confirmationKey is the key of tool.input under which a step record
// keeps its confirmation block (StepRecord.Confirmation): StepRecord v1
// closes every other object of a record, tool.input alone is open.
// Reading a record (SessionSteps) moves it back out of the input.
const confirmationKey = "confirmation"

// Labels that classify a confirmation step, so the store can tell which
// confirmations agents approved without reading the blocks.
const (
	confirmKindLabel     = "confirmation-kind:"
	confirmOutcomeLabel  = "confirmation-outcome:"
	confirmMismatchLabel = "confirmation-mismatch:"
)

// confirmationBlock moves rec's confirmation block into its tool.input,
// masked of secrets (package redact's rule, and the call's withheld
// values; a transaction's hash is kept), cut to its kind, outcome and
// mismatches when it would take more than a quarter of maxBytes, and
// labels the record with its kind, outcome and mismatched fields.
func confirmationBlock(rec *StepRecord, secrets []string, maxBytes int) {
	if rec.Confirmation == nil {
		return
	}
	b, err := json.Marshal(rec.Confirmation)
	var block map[string]any
	if err != nil || json.Unmarshal(b, &block) != nil || block == nil {
		return
	}
	var hash any
	if tx, ok := block["transaction"].(map[string]any); ok {
		hash = tx["hash"]
	}
	block, _ = redact.ScrubValue(block, secrets).(map[string]any)
	if tx, ok := block["transaction"].(map[string]any); ok && hash != nil {
		tx["hash"] = hash // a hash is the chain's, shaped like a key
	}
	if b, _ := json.Marshal(block); len(b) > maxBytes/4 {
		for _, k := range []string{"request", "shown"} {
			if v, ok := block[k]; ok && v != nil {
				kb, _ := json.Marshal(v)
				block[k] = map[string]any{"omitted": "too large", "bytes": len(kb)}
			}
		}
	}
	if rec.Tool.Input == nil {
		rec.Tool.Input = map[string]any{}
	}
	rec.Tool.Input[confirmationKey] = block
	if !slices.Contains(rec.Labels, LabelConfirmation) {
		rec.Labels = append(rec.Labels, LabelConfirmation)
	}
	str := func(k string) string { s, _ := block[k].(string); return s }
	if k := str("kind"); k != "" {
		rec.Labels = append(rec.Labels, confirmKindLabel+k)
	}
	if o := str("outcome"); o != "" {
		rec.Labels = append(rec.Labels, confirmOutcomeLabel+o)
	}
	ms, _ := block["mismatches"].([]any)
	for _, m := range ms {
		if mm, ok := m.(map[string]any); ok {
			rec.Labels = append(rec.Labels, confirmMismatchLabel+fmt.Sprint(mm["field"]))
		}
	}
}

// restoreConfirmation is confirmationBlock read back: the block out of
// rec's tool.input into rec.Confirmation.
func restoreConfirmation(rec *StepRecord) {
	block, ok := rec.Tool.Input[confirmationKey].(map[string]any)
	if !ok {
		return
	}
	rec.Confirmation = block
	delete(rec.Tool.Input, confirmationKey)
}
