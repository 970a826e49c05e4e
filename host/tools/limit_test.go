package tools

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/sdk"
)

func TestRPCHead(t *testing.T) {
	big := `{"a11yRef":"e` + strings.Repeat("1", 1000) + `","nested":{"id":99,"method":"x","s":"q\"id\":7"}}`
	for msg, want := range map[string][3]string{
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"mm_click","arguments":` + big + `}}`:      {"5", "tools/call", "mm_click"},
		`{"method":"tools/call","params":{"arguments":` + big + `,"name":"mm_type"},"jsonrpc":"2.0","id":"abc-1"}`: {`"abc-1"`, "tools/call", "mm_type"},
		`{ "jsonrpc" : "2.0" , "method" : "tools/list" , "id" : 12 }`:                                              {"12", "tools/list", ""},
		`{"jsonrpc":"2.0","method":"notifications/x","params":{"name":{"id":3}}}`:                                  {"", "notifications/x", ""},
	} {
		var h rpcHead
		// Byte by byte and all at once give the same.
		for _, c := range []byte(msg) {
			h.write([]byte{c})
		}
		if got := [3]string{string(h.id), h.method(), h.tool()}; got != want {
			t.Errorf("%.80s...: got %q, want %q", msg, got, want)
		}
	}
}

// TestLimitStdin: a line over the limit never reaches the server; it is
// answered MM_INVALID_INPUT with its id, and the lines around it pass.
func TestLimitStdin(t *testing.T) {
	huge := `{"method":"tools/call","params":{"name":"mm_click","arguments":{"a11yRef":"e` + strings.Repeat("1", 5<<20) + `"}},"jsonrpc":"2.0","id":41}`
	in := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + huge + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"x":"` + strings.Repeat("y", 900) + `"}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"x":"` + strings.Repeat("y", 2000) + `"}}` + "\n"
	var passed, answered bytes.Buffer
	lw := NewLineWriter(&answered)
	err := limitLines(bufio.NewReaderSize(strings.NewReader(in), 64), &passed, lw, 1024)
	if err == nil || err.Error() != "EOF" {
		t.Fatalf("limitLines: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(passed.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"id":1`) || !strings.Contains(lines[1], `"id":2`) {
		t.Fatalf("passed %d lines: %.200s", len(lines), passed.String())
	}
	answers := strings.Split(strings.TrimSpace(answered.String()), "\n")
	if len(answers) != 2 {
		t.Fatalf("answers: %s", answered.String())
	}
	var call struct {
		ID     int `json:"id"`
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
	}
	if err := json.Unmarshal([]byte(answers[0]), &call); err != nil || call.ID != 41 || !call.Result.IsError {
		t.Fatalf("answer to the oversized call: %s (%v)", answers[0], err)
	}
	var env Envelope
	json.Unmarshal([]byte(call.Result.Content[0].Text), &env)
	if env.OK || env.Error.Code != sdk.CodeInvalidInput || !strings.Contains(env.Error.Message, "mm_click") || strings.Contains(env.Error.Message, "111") {
		t.Fatalf("envelope: %s", call.Result.Content[0].Text)
	}
	var rpc struct {
		ID    int `json:"id"`
		Error struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal([]byte(answers[1]), &rpc); err != nil || rpc.ID != 3 || rpc.Error.Code != -32600 || !strings.Contains(rpc.Error.Message, "MM_INVALID_INPUT") {
		t.Fatalf("answer to the oversized initialize: %s", answers[1])
	}
}

func TestLimitHTTP(t *testing.T) {
	reached := 0
	h := LimitHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached++ }), 1024)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)))
	if reached != 1 {
		t.Fatal("a small request did not pass")
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"mm_type","arguments":{"text":"`+strings.Repeat("z", 1<<20)+`"}}}`)))
	if reached != 1 || rec.Code != 200 || !strings.Contains(rec.Body.String(), `"id":9`) || !strings.Contains(rec.Body.String(), "MM_INVALID_INPUT") {
		t.Fatalf("oversized request: %d %s", rec.Code, rec.Body.String())
	}
}

// TestLimitDepth: a request nested deeper than MaxDepth (20,000 levels in
// a tools/call's arguments, well within the size limit) is answered
// MM_INVALID_INPUT with its id over stdio and HTTP, never passed on; one
// just under MaxDepth passes.
func TestLimitDepth(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"mm_run_steps","arguments":{"steps":` +
		strings.Repeat(`{"a":`, 20000) + `1` + strings.Repeat(`}`, 20000) + `}}}`
	under := `{"jsonrpc":"2.0","id":78,"method":"tools/call","params":{"name":"mm_click","arguments":{"x":"]]]{{{",` +
		`"deep":` + strings.Repeat(`[`, MaxDepth-4) + strings.Repeat(`]`, MaxDepth-4) + `}}}`
	check := func(t *testing.T, answer string) {
		t.Helper()
		var call struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct{ Text string }
				IsError bool
			}
		}
		if err := json.Unmarshal([]byte(answer), &call); err != nil || call.ID != 77 || !call.Result.IsError || len(call.Result.Content) == 0 {
			t.Fatalf("answer to the deep call: %.300s (%v)", answer, err)
		}
		var env Envelope
		_ = json.Unmarshal([]byte(call.Result.Content[0].Text), &env)
		if env.OK || env.Error.Code != sdk.CodeInvalidInput || !strings.Contains(env.Error.Message, "mm_run_steps nests deeper") {
			t.Fatalf("envelope: %s", call.Result.Content[0].Text)
		}
	}
	t.Run("stdin", func(t *testing.T) {
		var passed, answered bytes.Buffer
		in := deep + "\n" + under + "\n"
		_ = limitLines(bufio.NewReaderSize(strings.NewReader(in), 64), &passed, NewLineWriter(&answered), 1<<20)
		if strings.Contains(passed.String(), `"id":77`) || !strings.Contains(passed.String(), `"id":78`) {
			t.Fatalf("passed: %.200s", passed.String())
		}
		check(t, strings.TrimSpace(answered.String()))
	})
	t.Run("http", func(t *testing.T) {
		reached := 0
		h := LimitHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached++ }), 1<<20)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/mcp", strings.NewReader(deep)))
		if reached != 0 || rec.Code != 200 {
			t.Fatalf("deep request reached the server (%d) or answered %d", reached, rec.Code)
		}
		check(t, rec.Body.String())
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/mcp", strings.NewReader(under)))
		if reached != 1 {
			t.Fatal("a request under MaxDepth did not pass")
		}
	})
}
