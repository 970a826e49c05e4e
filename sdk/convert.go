package sdk

import (
	"github.com/mmcp-dev/mmcp/sdk/internal/pb"
)

// The plugin side's conversions: a call's options from protobuf, its result
// to protobuf. The host's are in package pluginhost (convert.go).

func fromPBChainOptions(o *pb.ChainOptions) ChainOptions {
	return ChainOptions{Port: int(o.GetPort()), ChainID: o.GetChainId(), Mnemonic: o.GetMnemonic(),
		Balance: o.GetBalance(), Hardfork: o.GetHardfork(), BlockTime: int(o.GetBlockTime()), RPCURL: o.GetRpcUrl(), FreePort: o.GetFreePort()}
}

func toPBChainStatus(s ChainStatus) *pb.ChainStatus {
	return &pb.ChainStatus{Running: s.Running, RpcUrl: s.RPCURL, Port: int32(s.Port),
		ChainId: s.ChainID, BlockNumber: s.BlockNumber, External: s.External}
}

func fromPBDeployOptions(o *pb.DeployOptions) DeployOptions {
	return DeployOptions{Hardfork: o.GetHardfork(), DeployerOptions: DeployerOptions{
		FromAddress: o.GetFromAddress(), FromPrivateKey: o.GetFromPrivateKey()}}
}

func toPBDeployment(d Deployment) *pb.Deployment {
	return &pb.Deployment{ContractName: d.ContractName, ContractAddress: d.ContractAddress,
		DeployedAt: d.DeployedAt, TxHash: d.TxHash, BlockNumber: d.BlockNumber, Deployer: d.Deployer, Abi: d.ABI}
}

func toPBDeployments(ds []Deployment) []*pb.Deployment {
	out := make([]*pb.Deployment, len(ds))
	for i, d := range ds {
		out[i] = toPBDeployment(d)
	}
	return out
}

func fromPBStateOptions(o *pb.StateOptions) StateOptions {
	return StateOptions{AnvilPort: int(o.GetAnvilPort()), ChainID: o.GetChainId()}
}

func toPBMockStatus(s MockServerStatus) *pb.MockServerStatus {
	return &pb.MockServerStatus{Running: s.Running, Address: s.Address, Port: int32(s.Port), SpkiHash: s.SPKIHash}
}

func toPBWatchStatus(s WatchStatus) *pb.WatchStatus {
	out := &pb.WatchStatus{Running: s.Running, State: s.State, Command: s.Command, Pid: int32(s.Pid),
		ExtensionPath: s.ExtensionPath, Rebuilds: s.Rebuilds, Error: s.Error}
	if r := s.Last; r != nil {
		out.Last = &pb.Rebuild{Seq: r.Seq, DurationMs: r.DurationMs, FinishedAt: r.FinishedAt, By: r.By, BuildId: r.BuildID,
			Warnings: r.Warnings}
	}
	return out
}
