# mmcp: the two README commands are `make demo` and `make test`.
SHELL := /bin/bash
GO ?= go
BIN := $(CURDIR)/bin
export MMCP_NODE_MODULES := $(CURDIR)/.tools/node_modules
export ANVIL_PATH := $(CURDIR)/.tools/node_modules/.bin/anvil

PLUGINS := build chain contracts fixture mockserver
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: all build setup demo test test-unit bench proto vet fmt clean

all: build

## build: the host and the built-in plugins into ./bin
build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/mmcp ./cmd/mmcp
	@set -e; for p in $(PLUGINS); do if [ -d cmd/mmcp-plugin-$$p ]; then echo "$(GO) build -o $(BIN)/mmcp-plugin-$$p ./cmd/mmcp-plugin-$$p"; $(GO) build -o $(BIN)/mmcp-plugin-$$p ./cmd/mmcp-plugin-$$p; fi; done
	$(GO) build -o $(BIN)/examples/mmcp-plugin-hello ./examples/hello-plugin
	$(GO) build -o $(BIN)/examples/mmcp-plugin-screens ./examples/screens-plugin

## setup: Debian packages and npm packages the demo and the tests need
setup:
	./scripts/setup.sh

## demo: the main job (host + plugins + test wallet in Chrome + Anvil + a short flow)
demo: setup build
	$(BIN)/mmcp demo

## test: the whole suite, real Chrome, real Anvil, real plugin subprocesses
test: setup build
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	MMCP_BIN=$(BIN) $(GO) test -race -p 1 -count=1 -timeout 25m ./...

## bench: the benchmarks of every issue, printed as figures
bench: setup build
	MMCP_BIN=$(BIN) $(GO) test -run '^$$' -bench . -benchtime 20x ./...

## proto: regenerate sdk/internal/pb from sdk/proto
proto:
	protoc -I sdk/proto --go_out=. --go_opt=module=github.com/mmcp-dev/mmcp \
		--go-grpc_out=. --go-grpc_opt=module=github.com/mmcp-dev/mmcp \
		sdk/proto/mmcp/v1/*.proto

vet:
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf $(BIN)
