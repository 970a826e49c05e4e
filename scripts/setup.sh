#!/usr/bin/env bash
# Installs what the demo and the test suite need, and nothing that is
# already there: Debian's chromium, xvfb and postgresql, Node.js/npm if missing, the npm
# packages pinned in .tools/package-lock.json (Anvil, contract artifacts, the
# test dapp, the official MCP TypeScript SDK) and yarn (the build plugin's
# default command).
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi

need_apt=()
command -v chromium >/dev/null 2>&1 || [ -x /usr/lib/chromium/chromium ] || need_apt+=(chromium)
command -v Xvfb >/dev/null 2>&1 || need_apt+=(xvfb)
command -v npm >/dev/null 2>&1 || need_apt+=(nodejs npm)
command -v git >/dev/null 2>&1 || need_apt+=(git)
# PostgreSQL for the shared knowledge store's tests (internal/testutil/pgtest
# runs initdb and postgres in a temp dir; as root, as the user nobody).
command -v initdb >/dev/null 2>&1 || compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need_apt+=(postgresql)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: apt-get install ${need_apt[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ ! -x .tools/node_modules/.bin/anvil ] || [ .tools/package-lock.json -nt .tools/node_modules/.package-lock.json ]; then
  echo "setup: npm ci --prefix .tools"
  npm ci --prefix .tools --no-audit --no-fund --loglevel=error
fi

if ! command -v yarn >/dev/null 2>&1; then
  echo "setup: npm install -g yarn@1.22.22"
  $sudo npm install -g --no-audit --no-fund --loglevel=error yarn@1.22.22
fi
echo "setup: ok (chromium $(chromium --version 2>/dev/null | awk '{print $2}'), anvil $(.tools/node_modules/.bin/anvil --version | head -1 | awk '{print $3}'), yarn $(yarn --version))"
