// Package tools is the host's tool layer: every MCP tool call, whether it
// comes from an agent over stdio or HTTP, from the CLI, or from inside an
// mm_run_steps batch, goes through one Runner. The runner validates the
// arguments against the tool's JSON schema, serializes calls on the session,
// applies one deadline to the call, runs the handler, wraps the outcome in
// the envelope every tool answers ({ok, result | error, meta}) and answers; then it collects the
// observation the policy asks for, off the session lock but holding the
// owner's page gate (only a read-only call runs beside it), and hands the
// step to the recorder in call order. Handlers contain only their own logic.
package tools
