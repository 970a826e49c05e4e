package sdk

import (
	"context"

	"github.com/mmcp-dev/mmcp/sdk/internal/pb"
)

// The StateSnapshot capability over gRPC: the plugin side (server) and the
// host side (client), and their conversions.

type stateSnapshotServer struct {
	pb.UnimplementedStateSnapshotServer
	impl StateSnapshotter
}

func (s *stateSnapshotServer) Probe(ctx context.Context, _ *pb.Empty) (*pb.StateProbeResponse, error) {
	p, err := s.impl.Probe(ctx)
	e, err := toPBError(err)
	return &pb.StateProbeResponse{Elements: p.Elements, Script: p.Script, Error: e}, err
}

func (s *stateSnapshotServer) DetectScreen(ctx context.Context, r *pb.PageSnapshot) (*pb.ScreenResponse, error) {
	screen, err := s.impl.DetectScreen(ctx, fromPBPage(r))
	e, err := toPBError(err)
	return &pb.ScreenResponse{Screen: screen, Error: e}, err
}

func (s *stateSnapshotServer) State(ctx context.Context, r *pb.StateRequest) (*pb.WalletStatusResponse, error) {
	ws, err := s.impl.State(ctx, fromPBPage(r.GetPage()), SnapshotOptions{ExtensionID: r.GetExtensionId(), ChainID: r.GetChainId()})
	e, err := toPBError(err)
	return &pb.WalletStatusResponse{IsUnlocked: ws.IsUnlocked, AccountAddress: ws.AccountAddress, NetworkName: ws.NetworkName,
		ChainId: ws.ChainID, Balance: ws.Balance, ErrorMessage: ws.ErrorMessage, Error: e}, err
}

type stateSnapshotClient struct{ c pb.StateSnapshotClient }

func (s stateSnapshotClient) Probe(ctx context.Context) (StateProbe, error) {
	r, err := s.c.Probe(ctx, &pb.Empty{})
	if err != nil {
		return StateProbe{}, err
	}
	return StateProbe{Elements: r.Elements, Script: r.Script}, fromPBError(r.Error)
}

func (s stateSnapshotClient) DetectScreen(ctx context.Context, page PageSnapshot) (string, error) {
	r, err := s.c.DetectScreen(ctx, toPBPage(page))
	if err != nil {
		return "", err
	}
	return r.Screen, fromPBError(r.Error)
}

func (s stateSnapshotClient) State(ctx context.Context, page PageSnapshot, o SnapshotOptions) (WalletStatus, error) {
	r, err := s.c.State(ctx, &pb.StateRequest{Page: toPBPage(page), ExtensionId: o.ExtensionID, ChainId: o.ChainID})
	if err != nil {
		return WalletStatus{}, err
	}
	return WalletStatus{IsUnlocked: r.IsUnlocked, AccountAddress: r.AccountAddress, NetworkName: r.NetworkName,
		ChainID: r.ChainId, Balance: r.Balance, ErrorMessage: r.ErrorMessage}, fromPBError(r.Error)
}

var _ StateSnapshotter = stateSnapshotClient{}

func toPBPage(p PageSnapshot) *pb.PageSnapshot {
	els := make(map[string]*pb.ElementProbe, len(p.Elements))
	for k, e := range p.Elements {
		els[k] = &pb.ElementProbe{Present: e.Present, Text: e.Text}
	}
	return &pb.PageSnapshot{Url: p.URL, Role: p.Role, Elements: els, AppStateJson: p.AppState}
}

func fromPBPage(p *pb.PageSnapshot) PageSnapshot {
	els := make(map[string]ElementProbe, len(p.GetElements()))
	for k, e := range p.GetElements() {
		els[k] = ElementProbe{Present: e.GetPresent(), Text: e.GetText()}
	}
	return PageSnapshot{URL: p.GetUrl(), Role: p.GetRole(), Elements: els, AppState: p.GetAppStateJson()}
}
