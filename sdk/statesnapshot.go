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
	p, err := s.impl.Probe(ctx)
	e := wire.ToPBError(err)
	return &pb.StateProbeResponse{Elements: p.Elements, Script: p.Script, Error: e}, nil
}

func (s *stateSnapshotServer) DetectScreen(ctx context.Context, r *pb.PageSnapshot) (*pb.ScreenResponse, error) {
	screen, err := s.impl.DetectScreen(ctx, fromPBPage(r))
	e := wire.ToPBError(err)
	return &pb.ScreenResponse{Screen: screen, Error: e}, nil
}

func (s *stateSnapshotServer) State(ctx context.Context, r *pb.StateRequest) (*pb.WalletStatusResponse, error) {
	ws, err := s.impl.State(ctx, fromPBPage(r.GetPage()), SnapshotOptions{ExtensionID: r.GetExtensionId(), ChainID: r.GetChainId()})
	e := wire.ToPBError(err)
	return &pb.WalletStatusResponse{IsUnlocked: ws.IsUnlocked, AccountAddress: ws.AccountAddress, NetworkName: ws.NetworkName,
		ChainId: ws.ChainID, Balance: ws.Balance, ErrorMessage: ws.ErrorMessage, Error: e}, nil
}

func fromPBPage(p *pb.PageSnapshot) PageSnapshot {
	els := make(map[string]ElementProbe, len(p.GetElements()))
	for k, e := range p.GetElements() {
		els[k] = ElementProbe{Present: e.GetPresent(), Text: e.GetText()}
	}
	return PageSnapshot{URL: p.GetUrl(), Role: p.GetRole(), Elements: els, AppState: p.GetAppStateJson()}
}
