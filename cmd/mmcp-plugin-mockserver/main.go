// Command mmcp-plugin-mockserver is the built-in MockServer capability of
// mmcp: an HTTP and HTTPS proxy answering from mocks.
package main

import (
	"github.com/mmcp-dev/mmcp/plugins/mockserver"
	"github.com/mmcp-dev/mmcp/sdk"
)

func main() { sdk.Main(mockserver.New(sdk.Logger("mockserver"))) }
