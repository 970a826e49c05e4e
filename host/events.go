package host

import (
	"github.com/hashicorp/go-hclog"
)

// progressEvents forwards a plugin's events: progress to the MCP client,
// log lines to the host log (stderr), never to stdout.
type progressEvents struct {
	progress func(done, total float64, msg string)
	log      hclog.Logger
}

func (e progressEvents) Progress(done, total float64, msg string) {
	if e.progress != nil {
		e.progress(done, total, msg)
	}
}

func (e progressEvents) Log(level, msg string) {
	e.log.Log(hclog.LevelFromString(level), msg)
}
