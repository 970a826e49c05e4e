package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"

	"github.com/mmcp-dev/mmcp/host/browser"
)

// rpcCall makes one JSON-RPC call to a node.
func rpcCall(ctx context.Context, url, method string, params []any, out any) error {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if r.Error != nil {
		return fmt.Errorf("%s: %s", method, r.Error.Message)
	}
	return json.Unmarshal(r.Result, out)
}

// balanceOf reads an address's balance and formats it like the wallet
// does: "25 ETH", "0.1234 ETH".
func balanceOf(ctx context.Context, url, address string) (string, error) {
	var hexWei string
	if err := rpcCall(ctx, url, "eth_getBalance", []any{address, "latest"}, &hexWei); err != nil {
		return "", err
	}
	wei, ok := new(big.Int).SetString(strings.TrimPrefix(hexWei, "0x"), 16)
	if !ok {
		return "", fmt.Errorf("balance %q is not hex", hexWei)
	}
	return browser.FormatEther(wei) + " ETH", nil
}
