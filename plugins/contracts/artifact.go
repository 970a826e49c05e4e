package contracts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// artifact is compiled code ready to deploy.
type artifact struct {
	// Bytecode is the creation code.
	Bytecode []byte
	// ABI is the contract interface (may be empty for custom artifacts);
	// ABIJSON the same as compact JSON ("" when empty), for the registry.
	ABI     abi.ABI
	ABIJSON string
	// Source is where the artifact was read, for error messages.
	Source string
}

// newArtifact decodes hex creation code and a JSON ABI.
func newArtifact(code string, abiJSON []byte, source string) (*artifact, error) {
	code = strings.TrimSpace(code)
	if strings.Contains(code, "__") {
		return nil, fmt.Errorf("%s: bytecode needs library linking, which is not supported", source)
	}
	if !strings.HasPrefix(code, "0x") {
		code = "0x" + code
	}
	bin, err := hexutil.Decode(code)
	if err != nil {
		return nil, fmt.Errorf("%s: bad bytecode: %w", source, err)
	}
	a := &artifact{Bytecode: bin, Source: source}
	if len(abiJSON) > 0 && string(abiJSON) != "null" {
		if err := json.Unmarshal(abiJSON, &a.ABI); err != nil {
			return nil, fmt.Errorf("%s: bad abi: %w", source, err)
		}
		var buf bytes.Buffer
		if json.Compact(&buf, abiJSON) == nil {
			a.ABIJSON = buf.String()
		}
	}
	return a, nil
}

// creationData is the bytecode followed by the ABI-encoded constructor
// arguments.
func (a *artifact) creationData(args []any) ([]byte, error) {
	if len(args) == 0 && len(a.ABI.Constructor.Inputs) == 0 {
		return a.Bytecode, nil
	}
	packed, err := a.ABI.Pack("", args...)
	if err != nil {
		return nil, fmt.Errorf("encode constructor arguments: %w", err)
	}
	return append(append([]byte{}, a.Bytecode...), packed...), nil
}
