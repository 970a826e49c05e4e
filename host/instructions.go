package host

import "strings"

// instructions is the short agent guide sent at initialize (the long one is
// docs/agent-guide.md).
func instructions(prefix string) string {
	return strings.ReplaceAll(`mmcp drives a wallet extension (MetaMask or the bundled test wallet) in a real Chrome with a local chain.
Every tool answers a JSON envelope {ok, result | error{code,message,details}, meta}.
Start with mm_launch (stateMode "default" = unlocked wallet with 25 ETH), end with mm_cleanup.
Fast workflow: mm_describe_screen once to discover targets; then run the deterministic part as one
mm_run_steps batch with includeObservations "none" (or "failures" to keep full context on errors);
describe again when the screen has changed a lot. Prefer testId targets in batches: an a11yRef
acts only on the element it named in the latest mm_accessibility_snapshot or mm_describe_screen,
while it is still on the page with the same role and name; otherwise MM_TARGET_NOT_FOUND (describe
again). Screenshots are taken only on request (mm_screenshot); to read text the page shows (a dapp's
result, an address, an error line) use mm_get_text.
Before a flow, mm_knowledge_search / mm_knowledge_sessions show what earlier runs learned.`, "mm_", prefix+"_")
}
