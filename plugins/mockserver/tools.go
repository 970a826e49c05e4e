package mockserver

import (
	"context"

	"github.com/mmcp-dev/mmcp/sdk"
)

const noArgsSchema = `{"type":"object","properties":{},"additionalProperties":false}`

// addTools defines the plugin's standalone tools (sdk.ToolProvider through
// the embedded sdk.ToolSet).
func (p *Plugin) addTools() {
	ts := &p.ToolSet
	sdk.AddTool(ts, "add_mock", "Declare a mock: requests through the session's proxy (the wallet's and the pages' external HTTP and HTTPS calls) whose method and URL match get this response. The newest matching mock answers; a request no mock matches fails at once (502) and is recorded as unmatched. Mocks declared before mm_launch answer the wallet's start-up calls; they end with the session (mm_cleanup).",
		`{"type":"object","properties":{`+
			`"id":{"type":"string","pattern":"^[A-Za-z0-9._:-]{1,64}$","description":"Name of the mock in the request records; declaring an existing id replaces that mock (default: m1, m2, ...)"},`+
			`"method":{"type":"string","pattern":"^([A-Za-z]+|\\*)$","description":"HTTP method (default: any)"},`+
			`"url":{"type":"string","minLength":1,"description":"URL to match against scheme://host[:port]/path?query; an exact URL without a query matches any query"},`+
			`"match":{"type":"string","enum":["exact","prefix","regex"],"description":"How url matches (default exact; regex is Go syntax)"},`+
			`"status":{"type":"integer","minimum":100,"maximum":999,"description":"Response status (default 200)"},`+
			`"headers":{"type":"object","additionalProperties":{"type":"string"},"description":"Response headers; Content-Type defaults to application/json for json, else to what body looks like (text/html for a page)"},`+
			`"json":{"description":"Response body as a JSON value"},`+
			`"body":{"type":"string","description":"Response body as text (not with json)"},`+
			`"delayMs":{"type":"integer","minimum":0,"maximum":60000,"description":"Delay before the response"},`+
			`"times":{"type":"integer","minimum":0,"description":"Answer this many requests, then stop matching (default 0: unlimited)"}`+
			`},"required":["url"],"additionalProperties":false}`,
		func(_ context.Context, m Mock, _ sdk.Events) (any, error) {
			c, err := compile(m, sourceTool)
			if err != nil {
				return nil, err
			}
			id := p.store.add(c)
			return map[string]any{"id": id, "mock": c.Mock}, nil
		})
	sdk.AddTool(ts, "requests", "List the requests the proxy answered, oldest first: method, URL, whether a mock matched (and which), status, time. Filter by URL substring or to the unmatched ones (what the wallet tried to reach without a mock).",
		`{"type":"object","properties":{`+
			`"url":{"type":"string","description":"Only requests whose URL contains this"},`+
			`"unmatched":{"type":"boolean","description":"Only requests no mock matched"},`+
			`"limit":{"type":"integer","minimum":1,"maximum":2000,"default":200,"description":"At most this many, the newest"}`+
			`},"additionalProperties":false}`,
		func(_ context.Context, a struct {
			URL       string `json:"url"`
			Unmatched bool   `json:"unmatched"`
			Limit     int    `json:"limit"`
		}, _ sdk.Events) (any, error) {
			rs := p.store.requests(a.URL, a.Unmatched)
			total := len(rs)
			if len(rs) > a.Limit {
				rs = rs[len(rs)-a.Limit:]
			}
			return map[string]any{"requests": rs, "total": total}, nil
		})
	sdk.AddTool(ts, "mocks", "List the mocks in match order (the one tried first first) with their source (tool, default, or a mock file), hits and whether they are exhausted.", noArgsSchema,
		func(context.Context, struct{}, sdk.Events) (any, error) {
			return map[string]any{"mocks": p.store.list()}, nil
		})
	sdk.AddTool(ts, "clear", "Remove the mocks declared with add_mock and the request records. With all, also the default and workspace-file mocks (until the next launch reloads them).",
		`{"type":"object","properties":{`+
			`"mocks":{"type":"boolean","default":true,"description":"Remove mocks"},`+
			`"requests":{"type":"boolean","default":true,"description":"Remove request records"},`+
			`"all":{"type":"boolean","default":false,"description":"Also remove the default and file mocks"}`+
			`},"additionalProperties":false}`,
		func(_ context.Context, a struct {
			Mocks    bool `json:"mocks"`
			Requests bool `json:"requests"`
			All      bool `json:"all"`
		}, _ sdk.Events) (any, error) {
			keep := func(src string) bool { return !a.Mocks || (!a.All && src != sourceTool) }
			nm, nr := p.store.clear(keep, a.Requests)
			return map[string]any{"removedMocks": nm, "removedRequests": nr}, nil
		})
	sdk.AddTool(ts, "start", "Start the proxy (mm_launch does this for a session): 127.0.0.1 on a free port, a fresh certificate authority. Returns its address and the CA's SPKI hash for Chrome's --ignore-certificate-errors-spki-list.",
		`{"type":"object","properties":{"port":{"type":"integer","minimum":1,"maximum":65535,"description":"Port on 127.0.0.1 (default: a free port)"}},"additionalProperties":false}`,
		func(_ context.Context, o sdk.MockServerOptions, _ sdk.Events) (any, error) {
			return p.start(o)
		})
	sdk.AddTool(ts, "stop", "Stop the proxy; the declared mocks and the records end with it.", noArgsSchema,
		func(ctx context.Context, _ struct{}, _ sdk.Events) (any, error) {
			if err := p.Stop(ctx); err != nil {
				return nil, err
			}
			return map[string]any{"stopped": true}, nil
		})
	sdk.AddTool(ts, "status", "Whether the proxy runs, its address and the CA's SPKI hash.", noArgsSchema,
		func(context.Context, struct{}, sdk.Events) (any, error) {
			return p.status(), nil
		})
}
