# konnect-operator
#
# make test    every test: codegen freshness, formatting, vet, lint, unit,
#              integration (real kube-apiserver + etcd) and e2e.
# make run     the operator against a local control plane and the Konnect
#              simulator (or against a real cluster and Konnect when
#              configured).

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

GO ?= go
# Tools built once (kube-apiserver, etcd, kubectl, linter); shared between
# worktrees through KONNECT_OPERATOR_CACHE.
CACHE_DIR ?= $(or $(KONNECT_OPERATOR_CACHE),$(CURDIR)/.cache)
BIN_DIR ?= $(CURDIR)/bin
TEST_TIMEOUT ?= 20m
TEST_PARALLEL ?= 4
export KONNECT_OPERATOR_CACHE := $(CACHE_DIR)

.PHONY: all
all: build

##@ Build

.PHONY: build
build: ## Build every binary into bin/ (static; the Dockerfile runs this too).
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN_DIR)/ ./cmd/...

.PHONY: generate
generate: ## Regenerate clients, deepcopy, CRDs and the Konnect client.
	hack/update-codegen.sh

.PHONY: control-plane
control-plane: ## Build kube-apiserver, kube-controller-manager, etcd and kubectl into .cache/bin (once).
	hack/build-control-plane.sh

##@ Verify and test

.PHONY: verify
verify: verify-codegen fmt-check vet lint ## Codegen freshness, gofmt, go vet and the linter.

.PHONY: verify-codegen
verify-codegen:
	hack/verify-codegen.sh

.PHONY: fmt-check
fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^generated/')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

.PHONY: vet
vet:
	$(GO) vet ./...

.PHONY: lint
lint:
	hack/lint.sh

.PHONY: test
test: verify control-plane test-unit ## Run every test.

.PHONY: test-unit
test-unit: control-plane ## Unit, integration and e2e tests (each package that needs a control plane starts its own).
	$(GO) test -timeout $(TEST_TIMEOUT) -parallel $(TEST_PARALLEL) ./...

.PHONY: bench
bench: control-plane ## Benchmarks: the simulator's throughput, 3,000 entities through the operator, and its memory beside 10,000 unrelated Secrets.
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 50m ./pkg/operator
	$(GO) test -run '^$$' -bench . ./pkg/konnectsim

.PHONY: test-e2e
test-e2e: control-plane ## Only the e2e suite (built binaries, manifests applied with kubectl, the simulator binary).
	$(GO) test -timeout $(TEST_TIMEOUT) -count=1 -v ./e2e

##@ Run

.PHONY: run
run: control-plane build ## The operator on a local control plane and the Konnect simulator, or on $$KUBECONFIG and Konnect when KONNECT_TOKEN and KONNECT_SERVER_URL are set. Ctrl-C stops it.
	BIN_DIR=$(BIN_DIR) hack/run.sh

.PHONY: local-cluster
local-cluster: control-plane ## Start a local kube-apiserver + etcd in the background (kubeconfig in .local/kubeconfig).
	hack/local-cluster.sh up

.PHONY: local-cluster-down
local-cluster-down:
	hack/local-cluster.sh down

.PHONY: help
help:
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*##/ { printf "  %-18s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
