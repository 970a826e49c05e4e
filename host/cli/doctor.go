package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mmcp-dev/mmcp/host"
	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/config"
	"github.com/mmcp-dev/mmcp/plugins/chain/anvilpath"
	"github.com/mmcp-dev/mmcp/sdk"
)

// check is one line of `mmcp doctor`.
type check struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	// Required checks decide the exit code: a default mm_launch needs them.
	Required bool   `json:"required"`
	Detail   string `json:"detail"`
	Fix      string `json:"fix,omitempty"`
}

func init() {
	RegisterCommand(Command{
		Name:  "doctor",
		Usage: "[--json]",
		Short: "check what a launch needs, one line each with a fix; exit 0 when ready",
		Long:  "It checks Chrome, Anvil, node and yarn, ports, the workspace, the plugins and the artifacts directory.",
		Flags: jsonFlag,
		Func:  runDoctor,
	})
}

// runDoctor is `mmcp doctor [--json]`: everything a default launch needs,
// one line each, with a fix for what fails. Exit 0 only when every
// required check passes.
func runDoctor(ctx context.Context, in Input) int {
	cfg, stdout, stderr := in.Config, in.Stdout, in.Stderr
	if len(in.Args) > 0 {
		return in.Misused()
	}
	asJSON := in.Flags.Bool("json")
	// The shared knowledge store gets its own line rather than failing
	// the host's start.
	shared := cfg
	cfg.KnowledgeURL = config.KnowledgeOff
	h, err := startHost(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "mmcp:", err)
		return 1
	}
	defer h.Close()
	rc := h.Config()
	checks := []check{chromeCheck(rc), displayCheck(rc), anvilCheck(rc),
		toolCheck("node", "needed by mm_build; install Node.js (apt-get install nodejs npm)"),
		toolCheck("yarn", "needed by mm_build; npm install -g yarn"),
		portCheck(sdk.DefaultAnvilPort, "Anvil's default port"), portCheck(sdk.DefaultFixturePort, "the fixture server's port (MetaMask test builds read their state there)"),
		workspaceCheck(rc)}
	checks = append(checks, pluginChecks(h)...)
	checks = append(checks, artifactsCheck(rc.ArtifactsDir))
	if err := shared.Resolve(); err == nil && shared.SharedKnowledge() != "" {
		checks = append(checks, knowledgeCheck(ctx, shared.SharedKnowledge()))
	}

	ok := true
	for _, c := range checks {
		if c.Required && !c.OK {
			ok = false
		}
	}
	if asJSON {
		b, _ := json.MarshalIndent(map[string]any{"ok": ok, "checks": checks}, "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else {
		for _, c := range checks {
			mark := "ok  "
			switch {
			case !c.OK && c.Required:
				mark = "FAIL"
			case !c.OK:
				mark = "warn"
			}
			fmt.Fprintf(stdout, "%s %-16s %s\n", mark, c.Name, c.Detail)
			if !c.OK && c.Fix != "" {
				fmt.Fprintf(stdout, "     %-16s fix: %s\n", "", c.Fix)
			}
		}
		if ok {
			fmt.Fprintln(stdout, "mmcp doctor: ready for mm_launch")
		} else {
			fmt.Fprintln(stdout, "mmcp doctor: not ready (see FAIL lines)")
		}
	}
	if !ok {
		return 1
	}
	return 0
}

// version runs bin --version (bounded) and returns its first line.
func version(bin string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "version unknown: " + err.Error()
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

func chromeCheck(cfg config.Config) check {
	c := check{Name: "chrome", Required: true}
	bin, err := browser.FindChrome(cfg.Chrome)
	if err != nil {
		c.Detail = err.Error()
		c.Fix = "install Chromium (apt-get install chromium) or pass --chrome / set CHROME_PATH; mmcp never downloads a browser"
		return c
	}
	c.OK, c.Detail = true, version(bin)+" ("+bin+")"
	return c
}

func displayCheck(cfg config.Config) check {
	c := check{Name: "display", OK: true}
	switch {
	case cfg.Headless:
		c.Detail = "headless (--headless)"
	case runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "":
		c.Detail = "headless (no DISPLAY)"
	default:
		c.Detail = "headed on DISPLAY=" + os.Getenv("DISPLAY")
	}
	return c
}

func anvilCheck(cfg config.Config) check {
	c := check{Name: "anvil", Required: true}
	bin, err := anvilpath.Find("", cfg.Repo, anvilpath.OSEnv)
	if err != nil {
		c.Detail = sdk.AsError(err).Message
		c.Fix = "npm i -g @foundry-rs/anvil-linux-amd64, or set ANVIL_PATH"
		return c
	}
	c.OK, c.Detail = true, version(bin)+" ("+bin+")"
	return c
}

func toolCheck(name, fix string) check {
	c := check{Name: name}
	bin, err := exec.LookPath(name)
	if err != nil {
		c.Detail, c.Fix = name+" not on PATH", fix
		return c
	}
	c.OK, c.Detail = true, version(bin)+" ("+bin+")"
	return c
}

// portCheck reports who holds a default port. It is a note, not a
// failure: a default launch runs that service on a free port when another
// process holds its default one, and says so in its answer.
func portCheck(port int, what string) check {
	c := check{Name: "port " + strconv.Itoa(port)}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err == nil {
		_ = l.Close()
		c.OK, c.Detail = true, "free ("+what+")"
		return c
	}
	c.Detail = "in use"
	if pid, cmd := portHolder(port); pid > 0 {
		c.Detail = fmt.Sprintf("in use by pid %d (%s)", pid, cmd)
	}
	c.Detail += "; a default launch runs on a free port instead and says so"
	c.Fix = fmt.Sprintf("nothing to do, unless you need %d itself (%s): then stop what holds it", port, what)
	return c
}

func workspaceCheck(cfg config.Config) check {
	c := check{Name: "workspace", OK: true}
	if cfg.Repo == "" {
		c.Detail = "none: mm_launch loads the embedded test wallet, mm_build needs --repo"
		return c
	}
	built := "not built (mm_launch builds it first, or run mm_build)"
	if _, err := os.Stat(filepath.Join(cfg.Repo, sdk.DefaultExtensionPath, "manifest.json")); err == nil {
		built = "built (" + sdk.DefaultExtensionPath + ")"
	}
	c.Detail = cfg.Repo + ", " + built
	return c
}

// pluginChecks reports every discovered plugin; the chain and fixture
// capabilities are required for a default (funded, onboarded) launch.
func pluginChecks(h *host.Host) []check {
	var out []check
	for _, p := range h.Plugins().Plugins() {
		failure := p.Failure()
		c := check{Name: "plugin " + p.Spec.Name, OK: failure == nil, Detail: p.Spec.Path}
		if failure != nil {
			c.Detail, c.Fix = failure.Error(), "see `mmcp plugins`"
		}
		if failure == nil {
			c.Detail = p.Desc.Version + " " + p.Spec.Path
			if p.Desc.Has(sdk.CapChain) || p.Desc.Has(sdk.CapFixture) {
				c.Required = true
			}
		}
		out = append(out, c)
	}
	for _, cap := range []sdk.Capability{sdk.CapChain, sdk.CapFixture} {
		if !h.Plugins().Has(cap) {
			out = append(out, check{Name: "capability " + string(cap), Required: true,
				Detail: "no working plugin provides it", Fix: "install mmcp-plugin-" + string(cap) + " next to mmcp (make build / go install ./cmd/...)"})
		}
	}
	return out
}

func artifactsCheck(dir string) check {
	c := check{Name: "artifacts", Required: true}
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		var f *os.File
		if f, err = os.CreateTemp(dir, ".doctor-"); err == nil {
			f.Close()
			err = os.Remove(f.Name())
		}
	}
	if err != nil {
		c.Detail, c.Fix = dir+": "+err.Error(), "pass a writable --artifacts-dir"
		return c
	}
	c.OK, c.Detail = true, dir+" (writable)"
	return c
}

// portHolder finds the process listening on a local TCP port (Linux /proc;
// 0 elsewhere or when it is not ours to see).
func portHolder(port int) (int, string) {
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fields := strings.Fields(line)
			if len(fields) < 10 || fields[3] != "0A" { // LISTEN
				continue
			}
			_, hexPort, _ := strings.Cut(fields[1], ":")
			if p, err := strconv.ParseInt(hexPort, 16, 32); err == nil && int(p) == port {
				inodes[fields[9]] = true
			}
		}
	}
	if len(inodes) == 0 {
		return 0, ""
	}
	procs, _ := os.ReadDir("/proc")
	for _, e := range procs {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fds, _ := os.ReadDir(filepath.Join("/proc", e.Name(), "fd"))
		for _, fd := range fds {
			link, _ := os.Readlink(filepath.Join("/proc", e.Name(), "fd", fd.Name()))
			if strings.HasPrefix(link, "socket:[") && inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
				cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
				c := strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
				if len(c) > 80 {
					c = c[:80] + "…"
				}
				return pid, c
			}
		}
	}
	return 0, ""
}
