package discovery

import (
	"context"
	"fmt"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/sdk"
)

// Snapshot returns the trimmed accessibility tree of p
// (mm_accessibility_snapshot) and the RefMap of its refs, replacing the
// page's earlier refs. It is computed in one round trip by the walk of
// Describe in mmcp's isolated world (ARIA roles, implicit roles and
// accessible names of the kept elements, through open shadow roots and
// same-origin iframes) instead of pulling Chrome's whole AX tree, which
// costs several times more on big pages; the tests check that it agrees
// with Chrome's AX tree. A non-empty rootSelector scopes it to the first
// match's subtree; a selector matching nothing is MM_TARGET_NOT_FOUND, an
// invalid one MM_INVALID_INPUT.
func Snapshot(ctx context.Context, p *rod.Page, rootSelector string) ([]observation.A11yNode, *RefMap, error) {
	nodes, refs, _, err := SnapshotAt(ctx, p, rootSelector)
	return nodes, refs, err
}

// SnapshotAt is Snapshot with the page's URL and load state at the walk;
// zero for a rootSelector snapshot.
func SnapshotAt(ctx context.Context, p *rod.Page, rootSelector string) ([]observation.A11yNode, *RefMap, At, error) {
	p = p.Context(ctx)
	main, err := mainFrame(p)
	if err != nil {
		return nil, nil, At{}, err
	}
	opts := map[string]any{}
	if rootSelector != "" {
		opts["root"] = rootSelector
	}
	c, refs, err := walkRefs(p, main, opts)
	if err != nil {
		return nil, nil, At{}, fmt.Errorf("snapshot: %w", err)
	}
	switch c.Root {
	case "badselector":
		return nil, nil, At{}, sdk.Errorf(sdk.CodeInvalidInput, "rootSelector %q is not a valid CSS selector: %s", rootSelector, c.Reason)
	case "missing":
		return nil, nil, At{}, sdk.Errorf(sdk.CodeTargetNotFound, "no element matches rootSelector %q", rootSelector).
			WithDetails(map[string]any{"rootSelector": rootSelector})
	}
	c.result()
	return c.Nodes, refs, c.At, nil
}
