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

// tooLargeResponse is the JSON-RPC response to an oversized request.
func tooLargeResponse(h *rpcHead, n, max int64) []byte {
	var id any
	if h.id != nil {
		_ = json.Unmarshal(h.id, &id)
	}
	err := tooLarge(h.tool(), n, max)
	var msg any
	if h.method() == "tools/call" && id != nil {
		env := Envelope{OK: false, Error: err, Meta: Meta{Timestamp: Timestamp(time.Now())}}
		text, _ := json.Marshal(env)
		msg = map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{
			"content": []any{map[string]any{"type": "text", "text": string(text)}}, "isError": true}}
	} else {
		msg = map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
			"code": -32600, "message": err.Error(), "data": map[string]any{"code": err.Code, "limitBytes": max}}}
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
		if len(line) > 0 {
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
