package discovery

import (
	"context"
	"fmt"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/sdk"
)

// Structure is the trimmed tree of p (the walk of Snapshot, scoped to
// rootSelector's first match when given) for a structure check: it
// leaves the agent's refs alone, and its nodes carry no ref. A selector
// matching nothing is MM_TARGET_NOT_FOUND, an invalid one
// MM_INVALID_INPUT.
func Structure(ctx context.Context, p *rod.Page, rootSelector string) ([]observation.A11yNode, error) {
	p = p.Context(ctx)
	main, err := mainFrame(p)
	if err != nil {
		return nil, err
	}
	opts := map[string]any{"nodes": true}
	if rootSelector != "" {
		opts["root"] = rootSelector
	}
	var c collected
	if err := evalIn(p, main, jsCollect, idem, &c, opts); err != nil {
		return nil, fmt.Errorf("structure: %w", err)
	}
	switch c.Root {
	case "badselector":
		return nil, sdk.Errorf(sdk.CodeInvalidInput, "rootSelector %q is not a valid CSS selector: %s", rootSelector, c.Reason)
	case "missing":
		return nil, sdk.Errorf(sdk.CodeTargetNotFound, "no element matches rootSelector %q", rootSelector).
			WithDetails(map[string]any{"rootSelector": rootSelector})
	}
	c.result()
	return c.Nodes, nil
}
