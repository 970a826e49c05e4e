package host

import (
	"log"

	"github.com/hashicorp/go-hclog"
)

// hclogStd adapts the host logger for libraries that want a *log.Logger.
func hclogStd(l hclog.Logger) *log.Logger {
	return l.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true})
}
