# konnect-operator
#
# make test    every test: codegen freshness, formatting, vet, lint, the
#              vulnerability check of the module graph, unit, integration
#              (real kube-apiserver + etcd) and e2e.
# make run     the operator against a local control plane and the Konnect
#              simulator (or against a real cluster and Konnect when
#              configured).

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

GO ?= go
# Tools built once (kube-apiserver, etcd, kubectl, linter, helm, promtool);
# shared between worktrees through KONNECT_OPERATOR_CACHE.
CACHE_DIR ?= $(or $(KONNECT_OPERATOR_CACHE),$(CURDIR)/.cache)
BIN_DIR ?= $(CURDIR)/bin
TEST_TIMEOUT ?= 40m
TEST_PARALLEL ?= 6
# How many test packages go test runs at once; go test's default (one per
# core) when empty. More than one per core finishes sooner on a warm machine
# (the e2e packages mostly wait), but on a cold one their compiles and runs
# together starve the leader elections the chaos tests time.
TEST_PACKAGES ?=
export KONNECT_OPERATOR_CACHE := $(CACHE_DIR)
# The Go module proxies of hack/env.sh, which every script in hack/ uses too:
# the module folder shared beside the repository first, when there is one.
export GOPROXY := $(shell hack/env.sh GOPROXY)

# What `--version` prints and the image's labels say. Without git (a Docker
# build context has no .git) they fall back to "dev" and "unknown" unless
# given, as make variables or in the environment (the Dockerfile's ARGs).
MODULE := github.com/konnect-operator/konnect-operator
VERSION := $(or $(VERSION),$(shell git describe --tags --always --dirty 2>/dev/null),dev)
COMMIT := $(or $(COMMIT),$(shell git rev-parse HEAD 2>/dev/null),unknown)
LDFLAGS := -X $(MODULE)/pkg/version.Version=$(VERSION) -X $(MODULE)/pkg/version.Commit=$(COMMIT)

.PHONY: all
all: build

##@ Build

.PHONY: build
build: ## Build every binary into bin/ (static; the Dockerfile runs this too).
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN_DIR)/ ./cmd/...

# The image: one static binary per platform on a minimal non-root root
# filesystem, written by hack/tools/ociimage (no container engine, no base
# image to pull), with each binary's SBOM attached. Every timestamp in it is
# the commit's time, so that one commit always gives the same digests.
IMAGE_DIR ?= $(BIN_DIR)/image
IMAGE_ARCHIVE ?= $(BIN_DIR)/konnect-operator-image.tar
IMAGE_PLATFORMS ?= linux/amd64 linux/arm64
IMAGE_SOURCE ?= https://$(MODULE)
SOURCE_DATE_EPOCH ?= $(or $(shell git log -1 --format=%ct 2>/dev/null),0)
# The binary of each image platform, bin/<os>_<arch>/konnect-operator, and
# its SBOM beside it.
image_binary = $(abspath $(BIN_DIR))/$(subst /,_,$(1))/konnect-operator

.PHONY: image-binaries
image-binaries:
	@for platform in $(IMAGE_PLATFORMS); do \
	  echo ">> konnect-operator for $$platform"; \
	  CGO_ENABLED=0 GOOS=$${platform%/*} GOARCH=$${platform#*/} $(GO) build -trimpath -buildvcs=false -ldflags '$(LDFLAGS)' \
	    -o $(BIN_DIR)/$${platform%/*}_$${platform#*/}/konnect-operator ./cmd/konnect-operator; \
	done

.PHONY: sbom
sbom: image-binaries ## A CycloneDX SBOM (JSON) of the image's binary for each platform, beside it: bin/linux_amd64/konnect-operator.cdx.json, bin/linux_arm64/…; every module linked in, with its version, and the Go standard library. make image attaches them to the image.
	@cyclonedx=$$(hack/build-tools.sh cyclonedx-gomod); \
	for platform in $(IMAGE_PLATFORMS); do \
	  binary=$(BIN_DIR)/$${platform%/*}_$${platform#*/}/konnect-operator; \
	  GOOS=$${platform%/*} GOARCH=$${platform#*/} "$$cyclonedx" bin -json -std -noserial -notimestamp -version $(VERSION) -output $$binary.cdx.json $$binary; \
	  echo ">> SBOM of konnect-operator for $$platform: $$binary.cdx.json"; \
	done

.PHONY: image
image: sbom ## The operator image for linux/amd64 and linux/arm64, reproducible, with each binary's SBOM attached (OCI artifacts), as an OCI layout in bin/image and an OCI archive bin/konnect-operator-image.tar.
	$(GO) run -C hack/tools ./ociimage --out $(abspath $(IMAGE_DIR)) --archive $(abspath $(IMAGE_ARCHIVE)) \
	  $(foreach p,$(IMAGE_PLATFORMS),--binary $(p)=$(call image_binary,$(p)) --sbom $(p)=$(call image_binary,$(p)).cdx.json) \
	  --version $(VERSION) --revision $(COMMIT) --created $(SOURCE_DATE_EPOCH) --source $(IMAGE_SOURCE)

# Where a release pushes the image, and where make release-manifests writes
# the manifests pinned to it.
IMAGE_REPOSITORY ?= konnect-operator
RELEASE_DIR ?= $(BIN_DIR)/release

.PHONY: release-manifests
release-manifests: control-plane ## The install manifests of a release, pinned by digest to the image make image wrote in bin/image once pushed to IMAGE_REPOSITORY: bin/release/konnect-operator.yaml (kubectl apply --server-side -f) and bin/release/values-image.yaml (helm install --values).
	hack/release-manifests.sh "$(abspath $(IMAGE_DIR))" "$(IMAGE_REPOSITORY)" "$(abspath $(RELEASE_DIR))"

.PHONY: generate
generate: ## Regenerate clients, deepcopy and CRDs (and the chart's copies).
	hack/update-codegen.sh

.PHONY: docs
docs: ## Regenerate docs/reference from the code: flags, metrics, conditions and Events, packages, make targets, alerts, the API reference (crd-ref-docs) and the chart's values (helm-docs).
	hack/update-docs.sh

.PHONY: tools
tools: ## Build helm and promtool into .cache/bin (once), for the chart and alert tests.
	hack/build-tools.sh >/dev/null

.PHONY: control-plane
control-plane: ## Build kube-apiserver, kube-controller-manager, etcd and kubectl into .cache/bin (once).
	hack/build-control-plane.sh

##@ Verify and test

.PHONY: verify
verify: verify-codegen verify-docs fmt-check vet lint ## Codegen and docs/reference freshness, gofmt, go vet and the linter.

.PHONY: verify-codegen
verify-codegen:
	hack/verify-codegen.sh

.PHONY: verify-docs
verify-docs:
	hack/verify-docs.sh

.PHONY: fmt-check
fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^generated/')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

.PHONY: vet
vet:
	$(GO) vet ./...
	$(GO) vet -C hack/tools ./...

.PHONY: lint
lint:
	hack/lint.sh

.PHONY: vulncheck
vulncheck: ## govulncheck over the module graph against the Go vulnerability database (GOVULNDB, or golang.org/x/vulndb from the module proxy, built once): fails when the code calls a vulnerable function of a module; lists those of the Go standard library. Skipped, saying so, when no database can be had.
	hack/vulncheck.sh

.PHONY: test
test: verify vulncheck control-plane tools test-unit ## Run every test.

# The longest packages are named first, so that go test (one package per
# core at a time, or TEST_PACKAGES) starts them first and the short ones fill in beside them: ./... alone
# would start e2e/integration last and add its minutes to the end.
SLOW_TEST_PACKAGES := ./e2e ./e2e/maketargets ./e2e/integration ./e2e/isolated

.PHONY: test-unit
test-unit: control-plane tools ## Unit, integration and e2e tests (each package that needs a control plane starts its own).
	$(GO) test -timeout $(TEST_TIMEOUT) $(if $(TEST_PACKAGES),-p $(TEST_PACKAGES)) -parallel $(TEST_PARALLEL) $(SLOW_TEST_PACKAGES) ./...
	$(GO) test -C hack/tools ./...

.PHONY: bench
bench: control-plane ## Benchmarks: the simulator's throughput, 3,000 entities through the operator, the share of a 3,000/minute Konnect budget a cold create spends, both drift-detection modes side by side (N from KONNECT_BENCH_DRIFT_N, default 1,000; period KONNECT_BENCH_DRIFT_PERIOD, default 20s), the memory beside 10,000 unrelated Secrets, the live heap per object (KONNECT_HEAP_N, default 1,000), and kubectl konnect export of 1,000 entities (wall time, Konnect requests).
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 50m ./e2e/integration
	$(GO) test -run '^$$' -bench . ./pkg/konnectsim
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 10m ./pkg/export

# The entity counts make bench-sizing measures, one go test run (and one
# fresh control plane and simulator) each.
KONNECT_SIZING_N ?= 1000 5000

.PHONY: bench-sizing
bench-sizing: control-plane ## The built operator with its default flags against the simulator's 3,000 requests/minute: RSS (peak and idle) and CPU (creating, and idle over two sync periods) for each entity count of KONNECT_SIZING_N (default "1000 5000"; about 4 minutes for 1,000, 6 for 5,000). The figures of the README's Sizing section.
	for n in $(KONNECT_SIZING_N); do \
	  KONNECT_SIZING_N=$$n $(GO) test -timeout 40m -count=1 -v -run '^TestSizingOfTheBuiltOperator$$' ./e2e; \
	done

# The object count make bench-scale measures, how late the simulator
# answers (a Go duration: Konnect a network away) and the objects' kind
# (pair: consumers each with a key-auth credential; consumer: consumers
# alone, one busy kind).
KONNECT_SCALE_N ?= 10000
KONNECT_SCALE_LATENCY ?= 0s
KONNECT_SCALE_KIND ?= pair

.PHONY: bench-scale
bench-scale: control-plane ## The built operator with its default flags against the simulator's 3,000 requests/minute, answering KONNECT_SCALE_LATENCY late (default 0s), at KONNECT_SCALE_N objects (default 10,000; KONNECT_SCALE_KIND pair: consumers each with a key-auth credential, or consumer: consumers alone; in 4 control planes): the cold create's share of the budget (and its 429s, the wait at the Kubernetes client, the longest a worker waited on the Konnect limiter), spec-change latency during and after it, an idle period's Konnect calls, status writes and CPU, changes made in Konnect overwritten, a restart's writes and drift check, RSS. About N/3,000 minutes plus 10.
	KONNECT_SCALE_N=$(KONNECT_SCALE_N) KONNECT_SCALE_LATENCY=$(KONNECT_SCALE_LATENCY) KONNECT_SCALE_KIND=$(KONNECT_SCALE_KIND) $(GO) test -timeout 150m -count=1 -v -run '^TestScaleOfTheBuiltOperator$$' ./e2e

# What make bench-scale-orgs measures: how many organisations, the objects
# of each, how late the simulator answers and the objects' kind.
KONNECT_ORGS ?= 2
KONNECT_ORGS_N ?= 5000
KONNECT_ORGS_LATENCY ?= 100ms
KONNECT_ORGS_KIND ?= pair

.PHONY: bench-scale-orgs
bench-scale-orgs: control-plane ## The built operator with its default flags and KONNECT_ORGS organisations (default 2, at most 4) of KONNECT_ORGS_N objects each (default 5,000) created at once, the simulator at 3,000 requests/minute per organisation answering KONNECT_ORGS_LATENCY late (default 100ms): each organisation's creates a minute, share of its own budget and 429s, spec-change latency meanwhile, the longest a worker waited on a Konnect limiter, an idle period's writes, RSS.
	KONNECT_SCALE_ORGS=$(KONNECT_ORGS) KONNECT_SCALE_N=$(KONNECT_ORGS_N) KONNECT_SCALE_LATENCY=$(KONNECT_ORGS_LATENCY) KONNECT_SCALE_KIND=$(KONNECT_ORGS_KIND) $(GO) test -timeout 150m -count=1 -v -run '^TestScaleAcrossOrganisations$$' ./e2e

# What make bench-noisy-neighbour measures: how long another client spends
# organisation B's window, A's objects, B's objects waiting meanwhile, how
# late the simulator answers and the objects' kind.
KONNECT_NOISE ?= 3m
KONNECT_NOISE_N ?= 3000
KONNECT_NOISE_WAITING ?= 1500
KONNECT_NOISE_LATENCY ?= 0s
KONNECT_NOISE_KIND ?= pair

.PHONY: bench-noisy-neighbour
bench-noisy-neighbour: control-plane ## The built operator with its default flags while another client spends organisation B's whole window for KONNECT_NOISE (default 3m): organisation A creates KONNECT_NOISE_N objects (default 3,000) and B has KONNECT_NOISE_WAITING (default 1,500) waiting, the simulator at 3,000 requests/minute per organisation answering KONNECT_NOISE_LATENCY late (default 0s). A's share of its budget, spec-change latency in A meanwhile, B's finish after the noise and its Warnings (fails on any), the longest a worker waited on a Konnect limiter (fails beyond a second), an idle period's writes.
	KONNECT_SCALE_NOISE=$(KONNECT_NOISE) KONNECT_SCALE_N=$(KONNECT_NOISE_N) KONNECT_SCALE_NOISE_WAITING=$(KONNECT_NOISE_WAITING) KONNECT_SCALE_LATENCY=$(KONNECT_NOISE_LATENCY) KONNECT_SCALE_KIND=$(KONNECT_NOISE_KIND) $(GO) test -timeout 60m -count=1 -v -run '^TestNoisyNeighbour$$' ./e2e

# What make bench-shards measures: the objects of each shard, the objects
# moved from one shard to the other, how late the simulator answers and
# the objects' kind.
KONNECT_SHARDS_N ?= 5000
KONNECT_SHARDS_MOVE ?= 1000
KONNECT_SHARDS_LATENCY ?= 100ms
KONNECT_SHARDS_KIND ?= pair

.PHONY: bench-shards
bench-shards: control-plane ## The built operator with its default flags as two shards (a with a standby, b), each in its own organisation, the simulator at 3,000 requests/minute per organisation answering KONNECT_SHARDS_LATENCY late (default 100ms). Two rounds of KONNECT_SHARDS_N objects per shard (default 5,000) created at once, shard a's leader killed in the second: each shard's creates a minute, share of its budget and requests per clock minute, shard b's rate and spec-change latency in both rounds, when a's standby led and created again, an idle period's writes in both, RSS; KONNECT_SHARDS_MOVE objects (default 1,000) moved from a to b (Konnect writes, entities before and after, time until b holds them); then two shards sharing one organisation's budget (its requests per clock minute and 429s).
	KONNECT_SCALE_SHARDS_N=$(KONNECT_SHARDS_N) KONNECT_SCALE_SHARDS_MOVE=$(KONNECT_SHARDS_MOVE) KONNECT_SCALE_LATENCY=$(KONNECT_SHARDS_LATENCY) KONNECT_SCALE_KIND=$(KONNECT_SHARDS_KIND) $(GO) test -timeout 90m -count=1 -v -run '^TestScaleShards' ./e2e

# How long each phase of make bench-hostile lasts.
KONNECT_HOSTILE_PHASE ?= 90s

.PHONY: bench-hostile
bench-hostile: control-plane ## The built operator with its default flags while one tenant's auth configuration names a server of its own that pages without end, then answers 1 GiB bodies, then stalls, KONNECT_HOSTILE_PHASE each (default 90s), beside a tenant on the simulator: how soon the other tenant's services are Programmed in each phase, what the hostile server served, the highest RSS per phase and the peak overall (fails at 400 MiB or more, or if the operator exits).
	KONNECT_HOSTILE_PHASE=$(KONNECT_HOSTILE_PHASE) $(GO) test -timeout 30m -count=1 -v -run '^TestHostileServerAgainstTheBuiltOperator$$' ./e2e

.PHONY: test-stress
test-stress: ## make test while CPU hogs keep every core busy (STRESS_HOGS, default one per core): no verdict may depend on how fast the machine is.
	hack/stress.sh $(MAKE) test

.PHONY: test-long
test-long: control-plane tools ## The throughput measurements left out of make test (minutes each): the share of Konnect's budget a cold create spends under 429s, and the cost of stray 429s.
	KONNECT_TEST_LONG=1 $(GO) test -timeout 30m -count=1 -run 'TestSustainedLimitIsSpentWithoutStalls|TestStrayBare429sSlowAColdCreateLittle' -v ./e2e/integration

# How long Konnect (and, separately, the API server) stays away in
# make test-outages, and how many services (each with a route) the worlds hold.
KONNECT_OUTAGE ?= 5m
KONNECT_APISERVER_DOWN ?= 2m
KONNECT_OUTAGE_SERVICES ?= 30
# How late the simulator of make test-outages answers every Konnect request,
# as Konnect does across a network.
KONNECT_OUTAGE_LATENCY ?= 100ms

.PHONY: test-outages
test-outages: control-plane tools ## The outage tests at full length, printing their figures: Konnect answering 503, then hanging, for KONNECT_OUTAGE (default 5m) while services change, are deleted and created; a revoked token for as long, then replaced; the leader frozen past its Lease; the API server frozen for KONNECT_APISERVER_DOWN (default 2m). KONNECT_OUTAGE_SERVICES services, each with a route (default 30: 62 objects). The simulator answers every Konnect request KONNECT_OUTAGE_LATENCY late (default 100ms). make test runs them with a one-minute outage, 30s of API server, 12 services, the simulator answering at once.
	KONNECT_OUTAGE=$(KONNECT_OUTAGE) KONNECT_APISERVER_DOWN=$(KONNECT_APISERVER_DOWN) KONNECT_OUTAGE_SERVICES=$(KONNECT_OUTAGE_SERVICES) KONNECT_OUTAGE_LATENCY=$(KONNECT_OUTAGE_LATENCY) \
	  $(GO) test -timeout 40m -count=1 -parallel 5 -v -run 'TestKonnectAnswering503|TestKonnectHanging|TestLeaderFrozen|TestAPIServerStopped|TestRevokedToken' ./e2e/isolated

.PHONY: test-e2e
test-e2e: control-plane tools ## Only the e2e suite (built binaries, manifests applied with kubectl, the simulator binary).
	$(GO) test -timeout $(TEST_TIMEOUT) -count=1 -v ./e2e/...

##@ Run

# Make dies of the terminal's SIGINT however its recipe ends ("Error 130");
# with job control (bash -m) the script has the terminal to itself, so Ctrl-C
# reaches only it, and it ends with status 0 once everything is stopped.
.PHONY: run
run: control-plane build ## The operator on a local control plane and the Konnect simulator, or on $$KUBECONFIG and Konnect when KONNECT_TOKEN and KONNECT_SERVER_URL are set. Ctrl-C stops it.
	if [ -t 0 ]; then BIN_DIR=$(BIN_DIR) bash -m -c hack/run.sh; else BIN_DIR=$(BIN_DIR) hack/run.sh; fi

.PHONY: local-cluster
local-cluster: control-plane ## Start a local kube-apiserver + etcd in the background (kubeconfig in .local/kubeconfig).
	hack/local-cluster.sh up

.PHONY: local-cluster-down
local-cluster-down:
	hack/local-cluster.sh down

.PHONY: help
help:
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*##/ { printf "  %-18s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
