package pluginhost

import (
	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/internal/pb"
)

// The host side's conversions: a call's options to protobuf, its result
// from protobuf. The plugin side's are in package sdk (convert.go).

func toPBChainOptions(o sdk.ChainOptions) *pb.ChainOptions {
	return &pb.ChainOptions{Port: int32(o.Port), ChainId: o.ChainID, Mnemonic: o.Mnemonic,
		Balance: o.Balance, Hardfork: o.Hardfork, BlockTime: int32(o.BlockTime), RpcUrl: o.RPCURL, FreePort: o.FreePort}
}

func fromPBChainStatus(s *pb.ChainStatus) sdk.ChainStatus {
	return sdk.ChainStatus{Running: s.GetRunning(), RPCURL: s.GetRpcUrl(), Port: int(s.GetPort()),
		ChainID: s.GetChainId(), BlockNumber: s.GetBlockNumber(), External: s.GetExternal()}
}

func toPBDeployOptions(o sdk.DeployOptions) *pb.DeployOptions {
	return &pb.DeployOptions{Hardfork: o.Hardfork, FromAddress: o.DeployerOptions.FromAddress,
		FromPrivateKey: o.DeployerOptions.FromPrivateKey}
}

func fromPBDeployment(d *pb.Deployment) sdk.Deployment {
	return sdk.Deployment{ContractName: d.GetContractName(), ContractAddress: d.GetContractAddress(),
		DeployedAt: d.GetDeployedAt(), TxHash: d.GetTxHash(), BlockNumber: d.GetBlockNumber(), Deployer: d.GetDeployer(), ABI: d.GetAbi()}
}

func fromPBDeployments(ds []*pb.Deployment) []sdk.Deployment {
	out := make([]sdk.Deployment, len(ds))
	for i, d := range ds {
		out[i] = fromPBDeployment(d)
	}
	return out
}

func toPBStateOptions(o sdk.StateOptions) *pb.StateOptions {
	return &pb.StateOptions{AnvilPort: int32(o.AnvilPort), ChainId: o.ChainID}
}

func fromPBMockStatus(s *pb.MockServerStatus) sdk.MockServerStatus {
	return sdk.MockServerStatus{Running: s.GetRunning(), Address: s.GetAddress(), Port: int(s.GetPort()), SPKIHash: s.GetSpkiHash()}
}

func fromPBWatchStatus(s *pb.WatchStatus) sdk.WatchStatus {
	out := sdk.WatchStatus{Running: s.GetRunning(), State: s.GetState(), Command: s.GetCommand(), Pid: int(s.GetPid()),
		ExtensionPath: s.GetExtensionPath(), Rebuilds: s.GetRebuilds(), Error: s.GetError()}
	if r := s.GetLast(); r != nil {
		out.Last = &sdk.Rebuild{Seq: r.Seq, DurationMs: r.DurationMs, FinishedAt: r.FinishedAt, By: r.By, BuildID: r.BuildId,
			Warnings: r.Warnings}
	}
	if out.State == "" {
		out.State = sdk.WatchStopped
	}
	return out
}
