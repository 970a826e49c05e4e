package sdk

import (
	"encoding/json"

	"github.com/mmcp-dev/mmcp/sdk/internal/pb"
)

// toPBError splits err into a domain failure (returned as data) or a
// transport-level error (returned as the gRPC error).
func toPBError(err error) (*pb.Error, error) {
	if err == nil {
		return nil, nil
	}
	e := AsError(err)
	var details []byte
	if len(e.Details) > 0 {
		details, _ = json.Marshal(e.Details)
	}
	return &pb.Error{Code: e.Code, Message: e.Message, DetailsJson: details}, nil
}

// fromPBError turns a response's Error field back into an *Error (or nil).
func fromPBError(e *pb.Error) error {
	if e == nil || e.Code == "" {
		return nil
	}
	out := &Error{Code: e.Code, Message: e.Message}
	if len(e.DetailsJson) > 0 {
		_ = json.Unmarshal(e.DetailsJson, &out.Details)
	}
	return out
}

func toPBChainOptions(o ChainOptions) *pb.ChainOptions {
	return &pb.ChainOptions{Port: int32(o.Port), ChainId: o.ChainID, Mnemonic: o.Mnemonic,
		Balance: o.Balance, Hardfork: o.Hardfork, BlockTime: int32(o.BlockTime), RpcUrl: o.RPCURL, FreePort: o.FreePort}
}

func fromPBChainOptions(o *pb.ChainOptions) ChainOptions {
	return ChainOptions{Port: int(o.GetPort()), ChainID: o.GetChainId(), Mnemonic: o.GetMnemonic(),
		Balance: o.GetBalance(), Hardfork: o.GetHardfork(), BlockTime: int(o.GetBlockTime()), RPCURL: o.GetRpcUrl(), FreePort: o.GetFreePort()}
}

func toPBChainStatus(s ChainStatus) *pb.ChainStatus {
	return &pb.ChainStatus{Running: s.Running, RpcUrl: s.RPCURL, Port: int32(s.Port),
		ChainId: s.ChainID, BlockNumber: s.BlockNumber, External: s.External}
}

func fromPBChainStatus(s *pb.ChainStatus) ChainStatus {
	return ChainStatus{Running: s.GetRunning(), RPCURL: s.GetRpcUrl(), Port: int(s.GetPort()),
		ChainID: s.GetChainId(), BlockNumber: s.GetBlockNumber(), External: s.GetExternal()}
}

func toPBDeployOptions(o DeployOptions) *pb.DeployOptions {
	return &pb.DeployOptions{Hardfork: o.Hardfork, FromAddress: o.DeployerOptions.FromAddress,
		FromPrivateKey: o.DeployerOptions.FromPrivateKey}
}

func fromPBDeployOptions(o *pb.DeployOptions) DeployOptions {
	return DeployOptions{Hardfork: o.GetHardfork(), DeployerOptions: DeployerOptions{
		FromAddress: o.GetFromAddress(), FromPrivateKey: o.GetFromPrivateKey()}}
}

func toPBDeployment(d Deployment) *pb.Deployment {
	return &pb.Deployment{ContractName: d.ContractName, ContractAddress: d.ContractAddress,
		DeployedAt: d.DeployedAt, TxHash: d.TxHash, BlockNumber: d.BlockNumber, Deployer: d.Deployer}
}

func fromPBDeployment(d *pb.Deployment) Deployment {
	return Deployment{ContractName: d.GetContractName(), ContractAddress: d.GetContractAddress(),
		DeployedAt: d.GetDeployedAt(), TxHash: d.GetTxHash(), BlockNumber: d.GetBlockNumber(), Deployer: d.GetDeployer()}
}

func toPBDeployments(ds []Deployment) []*pb.Deployment {
	out := make([]*pb.Deployment, len(ds))
	for i, d := range ds {
		out[i] = toPBDeployment(d)
	}
	return out
}

func fromPBDeployments(ds []*pb.Deployment) []Deployment {
	out := make([]Deployment, len(ds))
	for i, d := range ds {
		out[i] = fromPBDeployment(d)
	}
	return out
}

func toPBStateOptions(o StateOptions) *pb.StateOptions {
	return &pb.StateOptions{AnvilPort: int32(o.AnvilPort), ChainId: o.ChainID}
}

func fromPBStateOptions(o *pb.StateOptions) StateOptions {
	return StateOptions{AnvilPort: int(o.GetAnvilPort()), ChainID: o.GetChainId()}
}

func toPBMockStatus(s MockServerStatus) *pb.MockServerStatus {
	return &pb.MockServerStatus{Running: s.Running, Address: s.Address, Port: int32(s.Port), SpkiHash: s.SPKIHash}
}

func fromPBMockStatus(s *pb.MockServerStatus) MockServerStatus {
	return MockServerStatus{Running: s.GetRunning(), Address: s.GetAddress(), Port: int(s.GetPort()), SPKIHash: s.GetSpkiHash()}
}

func toPBWatchStatus(s WatchStatus) *pb.WatchStatus {
	out := &pb.WatchStatus{Running: s.Running, State: s.State, Command: s.Command, Pid: int32(s.Pid),
		ExtensionPath: s.ExtensionPath, Rebuilds: s.Rebuilds, Error: s.Error}
	if r := s.Last; r != nil {
		out.Last = &pb.Rebuild{Seq: r.Seq, DurationMs: r.DurationMs, FinishedAt: r.FinishedAt, By: r.By, BuildId: r.BuildID}
	}
	return out
}

func fromPBWatchStatus(s *pb.WatchStatus) WatchStatus {
	out := WatchStatus{Running: s.GetRunning(), State: s.GetState(), Command: s.GetCommand(), Pid: int(s.GetPid()),
		ExtensionPath: s.GetExtensionPath(), Rebuilds: s.GetRebuilds(), Error: s.GetError()}
	if r := s.GetLast(); r != nil {
		out.Last = &Rebuild{Seq: r.Seq, DurationMs: r.DurationMs, FinishedAt: r.FinishedAt, By: r.By, BuildID: r.BuildId}
	}
	if out.State == "" {
		out.State = WatchStopped
	}
	return out
}
