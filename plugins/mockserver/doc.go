// Package mockserver is mmcp's built-in MockServer plugin: an HTTP and
// HTTPS forward proxy on 127.0.0.1 that answers a session's external
// requests from declared mocks, records every request, and never lets one
// reach the network.
//
// HTTPS arrives as CONNECT tunnels. Each Start generates a certificate
// authority (ECDSA P-256) in memory; leaf certificates are minted per host
// name, signed by it and sent with it in the chain. Nothing is written to
// disk. The host launches Chrome with --proxy-server pointing here and
// --ignore-certificate-errors-spki-list set to the CA's SPKI hash, so only
// that session's Chrome accepts these certificates.
//
// A request no mock matches is answered at once with a failure status
// (502 by default) and a body that says so, and is recorded as unmatched.
// Mocks come from three places, later ones overriding earlier ones: the
// built-in defaults (the endpoints a MetaMask test build calls at start-up,
// answered as MetaMask's own end-to-end mocks answer them), the
// workspace's mock files (<workspace>/.mmcp/mocks/*.json and the mockDirs
// setting), and the add_mock tool.
//
// Settings (the plugin's section of the mmcp config, all optional):
//
//	{"port": 0, "defaultMocks": true, "mockDirs": [], "unmatchedStatus": 502}
package mockserver
