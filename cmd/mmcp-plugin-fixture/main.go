// Command mmcp-plugin-fixture is the built-in Fixture capability of mmcp: it
// builds MetaMask wallet states and serves one at http://localhost:12345.
package main

import (
	"github.com/mmcp-dev/mmcp/plugins/fixture"
	"github.com/mmcp-dev/mmcp/sdk"
)

func main() { sdk.Main(fixture.New(sdk.Logger("fixture"))) }
