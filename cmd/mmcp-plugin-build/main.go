// Command mmcp-plugin-build is the built-in Build capability of mmcp.
package main

import (
	"github.com/mmcp-dev/mmcp/plugins/build"
	"github.com/mmcp-dev/mmcp/sdk"
)

func main() { sdk.Main(build.New(sdk.Logger("build"))) }
