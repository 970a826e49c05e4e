package plugins

import "github.com/hashicorp/go-hclog"

// Events forwards a plugin's events (sdk.Events): progress to the MCP
// client, log lines to the host log (stderr), never to stdout.
type Events struct {
	OnProgress func(done, total float64, msg string)
	Logger     hclog.Logger
}

// Progress implements sdk.Events.
func (e Events) Progress(done, total float64, msg string) {
	if e.OnProgress != nil {
		e.OnProgress(done, total, msg)
	}
}

// Log implements sdk.Events.
func (e Events) Log(level, msg string) {
	if e.Logger != nil {
		e.Logger.Log(hclog.LevelFromString(level), msg)
	}
}
