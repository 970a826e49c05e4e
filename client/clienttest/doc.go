// Package clienttest connects tests to an MCP server, in the style of
// net/http/httptest: Connect returns an open client.Handle that is closed
// when the test ends, with the call log going to the test's log.
package clienttest
