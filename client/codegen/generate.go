package codegen

import (
	"context"
	"fmt"
	"io"

	"github.com/mmcp-dev/mmcp/client"
)

// Generate is the whole codegen run of `mmcp gen`: it connects with opts
// (one connection; no session is opened, no drift check is made, nothing
// is logged), lists the tools, renders them with in (in.Tools is replaced)
// and writes path when something changed. It prints "Generated N tools." or
// "No changes." to w (nil for silence) and reports whether it wrote.
func Generate(ctx context.Context, opts client.Options, in Input, path string, w io.Writer) (changed bool, err error) {
	opts.Adapter = nil
	opts.ExpectedHash = ""
	opts.Log = client.LoggerOptions{Writer: io.Discard}
	h, err := client.Connect(ctx, opts)
	if err != nil {
		return false, fmt.Errorf("generate: %w", err)
	}
	in.Tools = h.Tools()
	if err := h.Close(ctx); err != nil {
		return false, fmt.Errorf("generate: %w", err)
	}
	src, err := Render(in)
	if err != nil {
		return false, fmt.Errorf("generate: %w", err)
	}
	changed, err = WriteIfChanged(path, src)
	if err != nil {
		return false, fmt.Errorf("generate: %w", err)
	}
	if w != nil {
		if changed {
			fmt.Fprintf(w, "Generated %d tools.\n", len(in.Tools))
		} else {
			fmt.Fprintln(w, "No changes.")
		}
	}
	return changed, nil
}
