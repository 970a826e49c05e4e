package sdk

import (
	"context"

	"github.com/mmcp-dev/mmcp/sdk/internal/pb"
	"github.com/mmcp-dev/mmcp/sdk/internal/wire"
)

// The StateSnapshot capability over gRPC: the plugin side (server) and
// its conversion; the host side is package pluginhost's.

type stateSnapshotServer struct {
	pb.UnimplementedStateSnapshotServer
	impl StateSnapshotter
}

func (s *stateSnapshotServer) Probe(ctx context.Context, _ *pb.Empty) (*pb.StateProbeResponse, error) {
	res, err := s.impl.Probe(ctx, ProbeRequest{})
	return &pb.StateProbeResponse{Elements: res.Probe.Elements, Script: res.Probe.Script, Error: wire.ToPBError(err)}, nil
}

func (s *stateSnapshotServer) DetectScreen(ctx context.Context, r *pb.PageSnapshot) (*pb.ScreenResponse, error) {
	res, err := s.impl.DetectScreen(ctx, DetectScreenRequest{Page: fromPBPage(r)})
	return &pb.ScreenResponse{Screen: res.Screen, Error: wire.ToPBError(err)}, nil
}

func (s *stateSnapshotServer) State(ctx context.Context, r *pb.StateRequest) (*pb.WalletStatusResponse, error) {
	res, err := s.impl.State(ctx, StateRequest{Page: fromPBPage(r.GetPage()),
		SnapshotOptions: SnapshotOptions{ExtensionID: r.GetExtensionId(), ChainID: r.GetChainId()}})
	ws := res.Status
	return &pb.WalletStatusResponse{IsUnlocked: ws.IsUnlocked, AccountAddress: ws.AccountAddress, NetworkName: ws.NetworkName,
		ChainId: ws.ChainID, Balance: ws.Balance, ErrorMessage: ws.ErrorMessage, Error: wire.ToPBError(err)}, nil
}

func fromPBPage(p *pb.PageSnapshot) PageSnapshot {
	els := make(map[string]ElementProbe, len(p.GetElements()))
	for k, e := range p.GetElements() {
		els[k] = ElementProbe{Present: e.GetPresent(), Text: e.GetText()}
	}
	return PageSnapshot{URL: p.GetUrl(), Role: p.GetRole(), Elements: els, AppState: p.GetAppStateJson()}
}
