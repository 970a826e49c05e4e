package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mmcp-dev/mmcp/host/checkpoint"
	"github.com/mmcp-dev/mmcp/host/config"
	"github.com/mmcp-dev/mmcp/host/settings"
	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/testwallet"
)

func init() {
	RegisterCommand(Command{
		Name:  "checkpoint export",
		Usage: "NAME --out FILE",
		Short: "write checkpoint NAME (mm_checkpoint_save; <sessionId>/<name> picks one session's) to one file to commit",
		Long: "The file holds the checkpoint and its chain's state: the wallet's persisted state with its vault encrypted as the wallet keeps it,\n" +
			"the tabs, mock rules, contracts, build id and chain id; no password, recovery phrase or private key.\n" +
			"A flow starts from it with launch: {fromCheckpoint: FILE}, an agent with mm_launch {\"fromCheckpoint\": FILE}.",
		Flags: func(fs *flag.FlagSet) { fs.String("out", "", "the file to write (required)") },
		Func:  runCheckpointExport,
	})
	RegisterCommand(Command{
		Name:  "checkpoint import",
		Usage: "FILE",
		Short: "keep an exported checkpoint file under this workspace's artifacts, for mm_launch {fromCheckpoint: NAME}",
		Long: "Refused (MM_CHECKPOINT_MISMATCH, naming the difference) when the file was saved on another build than the one\n" +
			"this workspace launches, or on another chain id than its chain plugin's.",
		Func: runCheckpointImport,
	})
}

// runCheckpointExport is `mmcp checkpoint export NAME --out FILE`.
func runCheckpointExport(_ context.Context, in Input) int {
	out := in.Flags.String("out")
	if len(in.Args) != 1 || out == "" {
		return in.Misused()
	}
	cfg := in.Config
	if err := cfg.Resolve(); err != nil {
		fmt.Fprintln(in.Stderr, "mmcp:", err)
		return 1
	}
	s, err := checkpointRoot(cfg).Find(in.Args[0])
	if err != nil {
		fmt.Fprintln(in.Stderr, "mmcp checkpoint export:", err)
		return 1
	}
	if err := checkpoint.WriteFile(s, out); err != nil {
		fmt.Fprintln(in.Stderr, "mmcp checkpoint export:", err)
		return 1
	}
	fi, _ := os.Stat(out)
	fmt.Fprintf(in.Stdout, "exported checkpoint %s (%s) to %s, %d bytes\n", s.Name, describeCheckpoint(s), out, fi.Size())
	return 0
}

// runCheckpointImport is `mmcp checkpoint import FILE`.
func runCheckpointImport(ctx context.Context, in Input) int {
	if len(in.Args) != 1 {
		return in.Misused()
	}
	cfg := in.Config
	if err := cfg.Resolve(); err != nil {
		fmt.Fprintln(in.Stderr, "mmcp:", err)
		return 1
	}
	s, err := checkpoint.ReadFile(in.Args[0])
	if err == nil {
		err = checkFits(ctx, cfg, s)
	}
	if err == nil {
		err = checkpointRoot(cfg).Store(checkpoint.Imported).Import(s)
	}
	if err != nil {
		fmt.Fprintln(in.Stderr, "mmcp checkpoint import:", err)
		return 1
	}
	fmt.Fprintf(in.Stdout, "imported checkpoint %s (%s): launch it with mm_launch {\"fromCheckpoint\": %q}\n", s.Name, describeCheckpoint(s), s.Name)
	return 0
}

// checkpointRoot is the folder of the workspace's checkpoints, as the
// host keeps them (session.Manager.Checkpoints).
func checkpointRoot(cfg config.Config) checkpoint.Root {
	return checkpoint.Root(filepath.Join(cfg.ArtifactsDir, "checkpoints"))
}

func describeCheckpoint(s *checkpoint.Saved) string {
	d := "session " + s.SessionID + ", build " + s.BuildID
	if c := s.Chain; c != nil {
		d += fmt.Sprintf(", chain %d at block %d", c.ChainID, c.BlockNumber)
	}
	return d
}

// checkFits is MM_CHECKPOINT_MISMATCH when s was saved on another build
// than the one a launch in this workspace loads, or another chain id than
// its chain plugin's.
func checkFits(ctx context.Context, cfg config.Config, s *checkpoint.Saved) error {
	build, err := launchedBuild(ctx, cfg)
	if err != nil {
		return err
	}
	return checkpoint.Mismatch(s.Checkpoint, build, configuredChainID(cfg))
}

// launchedBuild is the build id of the extension an mm_launch in this
// workspace loads: --extension, the embedded test wallet, or the
// workspace's sdk.DefaultExtensionPath; "" when there is none to hash.
func launchedBuild(ctx context.Context, cfg config.Config) (string, error) {
	dir := ""
	switch {
	case cfg.Extension == settings.TestWallet || (cfg.Extension == "" && cfg.Repo == ""):
		tmp, err := os.MkdirTemp("", "mmcp-checkpoint-import-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(tmp)
		dir = filepath.Join(tmp, "testwallet")
		if err := testwallet.WriteTo(dir); err != nil {
			return "", err
		}
	case cfg.Extension != "":
		dir = cfg.Path(cfg.Extension)
	default:
		dir = cfg.Path(sdk.DefaultExtensionPath)
	}
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		return "", nil // nothing built yet: the fork's launch compares it
	}
	id, err := sdk.BuildID(ctx, dir)
	if id == "" && err != nil {
		return "", err
	}
	return id, nil
}

// configuredChainID is the chain id the chain plugin starts with: its
// chainId setting, else sdk.DefaultChainID.
func configuredChainID(cfg config.Config) int64 {
	var s struct {
		ChainID int64 `json:"chainId"`
	}
	if raw, ok := cfg.PluginSettings()["chain"]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	if s.ChainID != 0 {
		return s.ChainID
	}
	return sdk.DefaultChainID
}
