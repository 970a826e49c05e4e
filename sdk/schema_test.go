package sdk

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestValidateNeverEchoesValues: a malformed secret (a private key that
// does not match its pattern) is named by its field, never repeated.
func TestValidateNeverEchoesValues(t *testing.T) {
	s, err := CompileSchema("mm_seed_contract", json.RawMessage(`{"type":"object","properties":{
		"deployerOptions":{"type":"object","properties":{"fromPrivateKey":{"type":"string","pattern":"^(0x)?[0-9a-fA-F]{64}$"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	const bad = "0xNOTAKEY8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c6"
	for _, args := range []string{
		`{"deployerOptions":{"fromPrivateKey":"` + bad + `"}}`,
	} {
		verr := s.Validate("mm_seed_contract", json.RawMessage(args))
		if verr == nil {
			t.Fatalf("%s validated", args)
		}
		b, _ := json.Marshal(verr)
		if strings.Contains(string(b), "NOTAKEY") {
			t.Errorf("the value is echoed: %s", b)
		}
		if verr.Code != CodeInvalidInput || verr.Details["field"] == "" {
			t.Errorf("error does not name the field: %s", b)
		}
	}
}
