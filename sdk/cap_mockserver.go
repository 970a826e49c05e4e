package sdk

import "context"

// MockServer is the MockServer capability: an HTTP and HTTPS forward proxy
// that answers a session's external requests from declared mocks and
// records every request. HTTPS goes through CONNECT and is answered with
// certificates minted by a certificate authority generated for the
// session; Chrome trusts that CA only through
// --ignore-certificate-errors-spki-list with SPKIHash.
type MockServer interface {
	// StartMockServer starts the proxy on a free loopback port (req.Port
	// when set) with a fresh certificate authority and returns where it
	// listens. A proxy that already runs is replaced. A busy port is
	// CodePortInUse.
	StartMockServer(ctx context.Context, req StartMockServerRequest) (StartMockServerResponse, error)
	// StopMockServer stops the proxy and forgets the certificate
	// authority. It is safe to call when nothing runs.
	StopMockServer(ctx context.Context, req StopMockServerRequest) (StopMockServerResponse, error)
	// MockServerStatus reports whether and where the proxy listens and
	// the hash Chrome needs to trust its certificates.
	MockServerStatus(ctx context.Context, req MockServerStatusRequest) (MockServerStatusResponse, error)
}

// MockServerOptions configure the proxy. Zero values mean the plugin's
// settings, then its defaults.
type MockServerOptions struct {
	// Port on 127.0.0.1; 0 means a free port.
	Port int `json:"port,omitempty"`
}

// MockServerStatus describes the proxy.
type MockServerStatus struct {
	Running bool `json:"running"`
	// Address is the proxy's host:port ("127.0.0.1:40123"); Chrome gets
	// --proxy-server=http://<Address>.
	Address string `json:"address,omitempty"`
	Port    int    `json:"port,omitempty"`
	// SPKIHash is the base64 SHA-256 of the session CA's
	// SubjectPublicKeyInfo, the value of Chrome's
	// --ignore-certificate-errors-spki-list.
	SPKIHash string `json:"spkiHash,omitempty"`
}

// StartMockServerRequest configures the proxy to start.
type StartMockServerRequest struct {
	MockServerOptions
}

// StartMockServerResponse describes the proxy that runs.
type StartMockServerResponse struct {
	Status MockServerStatus `json:"status"`
}

// StopMockServerRequest stops the proxy.
type StopMockServerRequest struct{}

// StopMockServerResponse is the answer of StopMockServer.
type StopMockServerResponse struct{}

// MockServerStatusRequest asks for the proxy's status.
type MockServerStatusRequest struct{}

// MockServerStatusResponse describes the proxy; a stopped proxy is Running
// false, not an error.
type MockServerStatusResponse struct {
	Status MockServerStatus `json:"status"`
}
