package sdk

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type testSettings struct {
	Port int    `json:"port,omitempty"`
	Dir  string `json:"dir,omitempty"`
	embeddedSettings
}

// embeddedSettings are settings embedded in another's, as the chain
// plugin's embed sdk.ChainOptions.
type embeddedSettings struct {
	Mode string `json:"mode,omitempty"`
}

func (s *testSettings) check() error {
	if s.Port < 0 {
		return Errorf(CodeInvalidConfig, "port must be positive")
	}
	if s.Dir == "" {
		s.Dir = "default"
	}
	return nil
}

func TestConfigured(t *testing.T) {
	var c Configured[testSettings]
	cfg := Config{Workspace: "/ws", Settings: json.RawMessage(`{"port": 9}`)}
	if err := c.Set("mine", cfg, (*testSettings).check); err != nil {
		t.Fatal(err)
	}
	got, s := c.Get()
	if got.Workspace != "/ws" || s.Port != 9 || s.Dir != "default" {
		t.Fatalf("Get = %+v %+v", got, s)
	}
	// A typo names the plugin and the allowed keys; nothing changes.
	err := c.Set("mine", Config{Settings: json.RawMessage(`{"prot": 1}`)}, (*testSettings).check)
	if e := AsError(err); e == nil || e.Code != CodeInvalidConfig || !strings.Contains(e.Message, "mine") || !strings.Contains(e.Message, "allowed keys are dir, mode, port") {
		t.Fatalf("typo: %v", err)
	}
	// check refuses.
	if err := c.Set("mine", Config{Settings: json.RawMessage(`{"port": -1}`)}, (*testSettings).check); AsError(err).Code != CodeInvalidConfig {
		t.Fatalf("check: %v", err)
	}
	if _, s := c.Get(); s.Port != 9 {
		t.Fatalf("a refused Set changed the settings: %+v", s)
	}
}

// A decode failure keeps its cause: a caller can tell a syntax error from
// an unknown key with errors.As, through the *Error.
func TestDecodeKeepsCause(t *testing.T) {
	var v testSettings
	err := DecodeArgs(json.RawMessage(`{"port": x}`), &v)
	var syn *json.SyntaxError
	if !errors.As(err, &syn) || AsError(err).Code != CodeInvalidInput {
		t.Fatalf("DecodeArgs of broken JSON = %#v, want an %s whose cause is a *json.SyntaxError", err, CodeInvalidInput)
	}
}
