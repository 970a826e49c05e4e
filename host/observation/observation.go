// Package observation holds the screen types shared by the browser session,
// the tool runner and the knowledge store: the extension state, the visible
// testids and the trimmed accessibility tree, as step records keep them.
package observation

// State is the extension's state as mm_get_state answers it and a step
// record keeps it.
type State struct {
	IsLoaded       bool    `json:"isLoaded"`
	CurrentURL     string  `json:"currentUrl"`
	ExtensionID    string  `json:"extensionId"`
	IsUnlocked     bool    `json:"isUnlocked"`
	CurrentScreen  string  `json:"currentScreen"`
	AccountAddress *string `json:"accountAddress"`
	NetworkName    *string `json:"networkName"`
	ChainID        *int64  `json:"chainId"`
	Balance        *string `json:"balance"`
	// ErrorMessage is the wallet's error text on its error screen (an
	// answer only; step records leave it out).
	ErrorMessage *string `json:"errorMessage,omitempty"`
}

// TestIDItem is one visible data-testid.
type TestIDItem struct {
	TestID  string `json:"testId"`
	Tag     string `json:"tag"`
	Text    string `json:"text,omitempty"`
	Visible bool   `json:"visible"`
}

// A11yNode is one node of the trimmed accessibility tree.
type A11yNode struct {
	Ref      string   `json:"ref"`
	Role     string   `json:"role"`
	Name     string   `json:"name"`
	Disabled *bool    `json:"disabled,omitempty"`
	Checked  *bool    `json:"checked,omitempty"`
	Expanded *bool    `json:"expanded,omitempty"`
	Selected *bool    `json:"selected,omitempty"`
	Path     []string `json:"path"`
}

// A11y wraps the node list as the spec's {nodes: [...]}.
type A11y struct {
	Nodes []A11yNode `json:"nodes"`
}

// Observation is what a step records after it ran: always the state, and
// with the full policy the testids and the trimmed tree.
type Observation struct {
	State   State        `json:"state"`
	TestIDs []TestIDItem `json:"testIds"`
	A11y    A11y         `json:"a11y"`
}

// Tab is one tracked page.
type Tab struct {
	Role string `json:"role"`
	URL  string `json:"url"`
}

// Tabs is the tabs block of mm_get_state.
type Tabs struct {
	Active  Tab   `json:"active"`
	Tracked []Tab `json:"tracked"`
}

// Screens are the screen names of the StepRecord v1 schema. A state can
// name others (MetaMask's confirmation screens, a StateSnapshot plugin's
// own names); step records keep such a name as the label
// "screen:<name>" and the closest of these (see RecordScreen).
var Screens = []string{
	"unlock", "home", "onboarding-welcome", "onboarding-import",
	"onboarding-create", "onboarding-srp", "onboarding-password",
	"onboarding-complete", "onboarding-metametrics", "settings", "unknown",
}

// RecordScreen is the StepRecord v1 screen for a state's screen name: the
// name itself when the schema has it, the onboarding step it belongs to
// for MetaMask's later onboarding screens, else "unknown".
func RecordScreen(name string) string {
	for _, s := range Screens {
		if s == name {
			return name
		}
	}
	switch name {
	case "onboarding-pin-extension", "onboarding-privacy":
		return "onboarding-complete"
	}
	return "unknown"
}
