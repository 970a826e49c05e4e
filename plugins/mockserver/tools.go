package mockserver

import (
	"context"
	"encoding/json"

	"github.com/mmcp-dev/mmcp/sdk"
)

const noArgsSchema = `{"type":"object","properties":{},"additionalProperties":false}`

// defaultRequestLimit is how many records requests returns by default.
const defaultRequestLimit = 200

// Tools implements sdk.ToolProvider.
func (p *Plugin) Tools() []sdk.Tool {
	return []sdk.Tool{
		{Name: "add_mock", Description: "Declare a mock: requests through the session's proxy (the wallet's and the pages' external HTTP and HTTPS calls) whose method and URL match get this response. The newest matching mock answers; a request no mock matches fails at once (502) and is recorded as unmatched. Mocks declared before mm_launch answer the wallet's start-up calls; they end with the session (mm_cleanup).",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"id":{"type":"string","pattern":"^[A-Za-z0-9._:-]{1,64}$","description":"Name of the mock in the request records; declaring an existing id replaces that mock (default: m1, m2, ...)"},` +
				`"method":{"type":"string","pattern":"^([A-Za-z]+|\\*)$","description":"HTTP method (default: any)"},` +
				`"url":{"type":"string","minLength":1,"description":"URL to match against scheme://host[:port]/path?query; an exact URL without a query matches any query"},` +
				`"match":{"type":"string","enum":["exact","prefix","regex"],"description":"How url matches (default exact; regex is Go syntax)"},` +
				`"status":{"type":"integer","minimum":100,"maximum":999,"description":"Response status (default 200)"},` +
				`"headers":{"type":"object","additionalProperties":{"type":"string"},"description":"Response headers; Content-Type defaults to application/json for json, else to what body looks like (text/html for a page)"},` +
				`"json":{"description":"Response body as a JSON value"},` +
				`"body":{"type":"string","description":"Response body as text (not with json)"},` +
				`"delayMs":{"type":"integer","minimum":0,"maximum":60000,"description":"Delay before the response"},` +
				`"times":{"type":"integer","minimum":0,"description":"Answer this many requests, then stop matching (default 0: unlimited)"}` +
				`},"required":["url"],"additionalProperties":false}`)},
		{Name: "requests", Description: "List the requests the proxy answered, oldest first: method, URL, whether a mock matched (and which), status, time. Filter by URL substring or to the unmatched ones (what the wallet tried to reach without a mock).",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"url":{"type":"string","description":"Only requests whose URL contains this"},` +
				`"unmatched":{"type":"boolean","description":"Only requests no mock matched"},` +
				`"limit":{"type":"integer","minimum":1,"maximum":2000,"description":"At most this many, the newest (default 200)"}` +
				`},"additionalProperties":false}`)},
		{Name: "mocks", Description: "List the mocks in match order (the one tried first first) with their source (tool, default, or a mock file), hits and whether they are exhausted.", InputSchema: json.RawMessage(noArgsSchema)},
		{Name: "clear", Description: "Remove the mocks declared with add_mock and the request records. With all, also the default and workspace-file mocks (until the next launch reloads them).",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"mocks":{"type":"boolean","description":"Remove mocks (default true)"},` +
				`"requests":{"type":"boolean","description":"Remove request records (default true)"},` +
				`"all":{"type":"boolean","description":"Also remove the default and file mocks (default false)"}` +
				`},"additionalProperties":false}`)},
		{Name: "start", Description: "Start the proxy (mm_launch does this for a session): 127.0.0.1 on a free port, a fresh certificate authority. Returns its address and the CA's SPKI hash for Chrome's --ignore-certificate-errors-spki-list.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"port":{"type":"integer","minimum":1,"maximum":65535,"description":"Port on 127.0.0.1 (default: a free port)"}},"additionalProperties":false}`)},
		{Name: "stop", Description: "Stop the proxy; the declared mocks and the records end with it.", InputSchema: json.RawMessage(noArgsSchema)},
		{Name: "status", Description: "Whether the proxy runs, its address and the CA's SPKI hash.", InputSchema: json.RawMessage(noArgsSchema)},
	}
}

// CallTool implements sdk.ToolProvider.
func (p *Plugin) CallTool(ctx context.Context, name string, args json.RawMessage, _ sdk.Events) (any, error) {
	switch name {
	case "add_mock":
		var m Mock
		if err := sdk.DecodeArgs(args, &m); err != nil {
			return nil, err
		}
		c, err := compile(m, sourceTool)
		if err != nil {
			return nil, err
		}
		id := p.store.add(c)
		return map[string]any{"id": id, "mock": c.Mock}, nil
	case "requests":
		a := struct {
			URL       string `json:"url"`
			Unmatched bool   `json:"unmatched"`
			Limit     int    `json:"limit"`
		}{Limit: defaultRequestLimit}
		if err := sdk.DecodeArgs(args, &a); err != nil {
			return nil, err
		}
		rs := p.store.requests(a.URL, a.Unmatched)
		total := len(rs)
		if a.Limit > 0 && len(rs) > a.Limit {
			rs = rs[len(rs)-a.Limit:]
		}
		return map[string]any{"requests": rs, "total": total}, nil
	case "mocks":
		if err := sdk.DecodeArgs(args, &struct{}{}); err != nil {
			return nil, err
		}
		return map[string]any{"mocks": p.store.list()}, nil
	case "clear":
		a := struct {
			Mocks    *bool `json:"mocks"`
			Requests *bool `json:"requests"`
			All      bool  `json:"all"`
		}{}
		if err := sdk.DecodeArgs(args, &a); err != nil {
			return nil, err
		}
		mocks, recs := a.Mocks == nil || *a.Mocks, a.Requests == nil || *a.Requests
		keep := func(src string) bool { return !mocks || (!a.All && src != sourceTool) }
		nm, nr := p.store.clear(keep, recs)
		return map[string]any{"removedMocks": nm, "removedRequests": nr}, nil
	case "start":
		var o sdk.MockServerOptions
		if err := sdk.DecodeArgs(args, &o); err != nil {
			return nil, err
		}
		return p.Start(ctx, o)
	case "stop":
		if err := sdk.DecodeArgs(args, &struct{}{}); err != nil {
			return nil, err
		}
		if err := p.Stop(ctx); err != nil {
			return nil, err
		}
		return map[string]any{"stopped": true}, nil
	case "status":
		if err := sdk.DecodeArgs(args, &struct{}{}); err != nil {
			return nil, err
		}
		return p.Status(ctx)
	}
	return nil, sdk.Errorf(sdk.CodeInvalidInput, "unknown tool %q", name)
}
