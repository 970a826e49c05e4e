package tools

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// A request over the size limit is never held in memory: it is read
// through once, keeping only its JSON-RPC id, method and tool name, and
// answered MM_INVALID_INPUT (a tools/call gets the usual error envelope,
// any other request a JSON-RPC error).

// tooLarge is the error of a request of n bytes over max.
func tooLarge(tool string, n, max int64) *sdk.Error {
	what := "request"
	if tool != "" {
		what = fmt.Sprintf("call of %s", tool)
	}
	return sdk.Errorf(sdk.CodeInvalidInput, "%s is larger than the host's limit of %d bytes (%d bytes read); send smaller arguments or raise --max-request-bytes", what, max, n).
		WithDetails(map[string]any{"limitBytes": max})
}

// MaxDepth bounds how deeply a request's JSON nests: a deeper one (within
// the size limit) is answered MM_INVALID_INPUT with its id, as an
// oversized one is, before the MCP server's parser (encoding/json, which
// stops at 10,000 levels) gives up on it without the id. A request under
// it reaches the runner, whose schema check refuses what a tool does not
// take.
const MaxDepth = 9000

// tooDeep is the error of a request nested deeper than MaxDepth.
func tooDeep(tool string) *sdk.Error {
	what := "request"
	if tool != "" {
		what = fmt.Sprintf("call of %s", tool)
	}
	return sdk.Errorf(sdk.CodeInvalidInput, "%s nests deeper than the host's limit of %d levels; send flatter arguments", what, MaxDepth).
		WithDetails(map[string]any{"maxDepth": MaxDepth})
}

// depthOver reports whether the JSON text b nests deeper than max (strings
// are skipped; b need not be valid).
func depthOver(b []byte, max int) bool {
	depth, inString, escape := 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escape:
				escape = false
			case c == '\\':
				escape = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > max {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

// tooDeepResponse is the JSON-RPC response to a request nested too deep.
func tooDeepResponse(b []byte) []byte {
	var h rpcHead
	h.write(b)
	return rejectResponse(&h, tooDeep(h.tool()), map[string]any{"maxDepth": MaxDepth})
}

// tooLargeResponse is the JSON-RPC response to an oversized request.
func tooLargeResponse(h *rpcHead, n, max int64) []byte {
	return rejectResponse(h, tooLarge(h.tool(), n, max), map[string]any{"limitBytes": max})
}

// rejectResponse answers the request h scanned with err: a tools/call the
// usual error envelope, any other request a JSON-RPC error whose data
// carries err's code and data.
func rejectResponse(h *rpcHead, err *sdk.Error, data map[string]any) []byte {
	var id any
	if h.id != nil {
		_ = json.Unmarshal(h.id, &id)
	}
	var msg any
	if h.method() == "tools/call" && id != nil {
		env := Envelope{OK: false, Error: err, Meta: Meta{Timestamp: Timestamp(time.Now())}}
		text, _ := json.Marshal(env)
		msg = map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{
			"content": []any{map[string]any{"type": "text", "text": string(text)}}, "isError": true}}
	} else {
		data["code"] = err.Code
		msg = map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
			"code": -32600, "message": err.Error(), "data": data}}
	}
	b, _ := json.Marshal(msg)
	return b
}

// LimitStdin returns a reader of in for the stdio transport that passes
// lines of at most max bytes and answers longer ones itself through w
// (they never reach the MCP server).
func LimitStdin(in io.Reader, w *LineWriter, max int) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(limitLines(bufio.NewReaderSize(in, 64<<10), pw, w, max))
	}()
	return pr
}

// limitLines copies whole lines of r to out, at most max bytes each.
func limitLines(r *bufio.Reader, out io.Writer, w *LineWriter, max int) error {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > max {
			// Over the limit: read the rest of the line through the head
			// scanner, then answer it.
			var h rpcHead
			h.write(line)
			h.write(chunk)
			n := int64(len(line) + len(chunk))
			line = line[:0]
			for err == bufio.ErrBufferFull {
				chunk, err = r.ReadSlice('\n')
				h.write(chunk)
				n += int64(len(chunk))
			}
			if _, werr := w.Write(append(tooLargeResponse(&h, n, int64(max)), '\n')); werr != nil {
				return werr
			}
			if err != nil {
				return err
			}
			continue
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(line) > 0 && depthOver(line, MaxDepth) {
			if _, werr := w.Write(append(tooDeepResponse(line), '\n')); werr != nil {
				return werr
			}
		} else if len(line) > 0 {
			if _, werr := out.Write(line); werr != nil {
				return werr
			}
		}
		line = line[:0]
		if err != nil {
			return err
		}
	}
}

// LimitHTTP answers a POST body over max bytes itself (HTTP 200 with the
// JSON-RPC response, as a streamable HTTP server answers a request) and
// passes the others to next.
func LimitHTTP(next http.Handler, max int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, int64(max)+1))
		if err != nil {
			http.Error(w, "read request: "+err.Error(), http.StatusBadRequest)
			return
		}
		if len(body) <= max && depthOver(body, MaxDepth) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(tooDeepResponse(body))
			return
		}
		if len(body) <= max {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			next.ServeHTTP(w, r)
			return
		}
		var h rpcHead
		h.write(body)
		n := int64(len(body))
		body = nil
		// Read the rest through the scanner (the id may come last), up to
		// a bound: a client that keeps sending is cut off.
		buf := make([]byte, 64<<10)
		for n < 64*int64(max) {
			k, err := r.Body.Read(buf)
			h.write(buf[:k])
			n += int64(k)
			if err != nil {
				break
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Connection", "close")
		_, _ = w.Write(tooLargeResponse(&h, n, int64(max)))
	})
}
