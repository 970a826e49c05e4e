// Package client calls the tools of any MCP server from Go code and tests.
//
// It is a client library for calling an MCP server's tools from tests:
// a Handle opened with Connect owns one MCP connection (a stdio
// subprocess or streamable HTTP), checks the live tool registry against the
// hash baked into generated code (see package codegen), opens a session
// through a SessionAdapter, and runs every call through an Invoker that
// serializes calls in FIFO order and logs each one as two JSONL lines
// ("before" and "after") that can be replayed with RunSequence.
//
// Nothing here is specific to mmcp except adapter_mmcp.go. Nothing in this
// package writes to stdout: the call log defaults to os.Stderr.
package client
