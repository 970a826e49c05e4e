package contracts

// Settings is the plugin's section of the mmcp config.
type Settings struct {
	// NodeModules is a node_modules directory searched first for
	// @metamask/test-dapp and @account-abstraction/contracts (absolute or
	// relative to the workspace).
	NodeModules string `json:"nodeModules,omitempty"`
	// ArtifactDirs are directories (relative to the workspace) searched for
	// Foundry (out/X.sol/X.json) and Hardhat artifact JSON files; each
	// artifact with bytecode and no constructor arguments is deployable by
	// its contract name.
	ArtifactDirs []string `json:"artifactDirs,omitempty"`
}
