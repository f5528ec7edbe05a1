# syntax=docker/dockerfile:1
#
# The konnect-operator image: a static binary on a distroless, non-root base,
# for those with a container engine. Without one, `make image` builds the
# same image (amd64 and arm64) as an OCI layout; see the README.
#
#   docker build -t konnect-operator .
#
# The builder runs the same `make build` as developers and CI do
# (CGO_ENABLED=0, -trimpath); e2e/build_test.go runs this stage's commands and
# checks that the binary is statically linked.
#
# Base images are pinned to exact versions and to the digests of their
# multi-platform indexes, so that a tag moved in the registry changes
# nothing here. The digests are those the registries served for these tags
# (golang: docker-library/repo-info's record of golang:1.26.8-bookworm;
# distroless: gcr.io/distroless/static-debian12:nonroot as of 2026-09).
# When you bump a tag, resolve its digest again, e.g.:
#   crane digest golang:1.26.8-bookworm
#   docker buildx imagetools inspect gcr.io/distroless/static-debian12:nonroot
# or pass other images as build arguments (GO_IMAGE, BASE_IMAGE).
ARG GO_IMAGE=golang:1.26.8-bookworm@sha256:9fdc884aacc3bec89b20ffc69f4bb369c78210e3e4f600387b5128b12c199f81
ARG BASE_IMAGE=gcr.io/distroless/static-debian12:nonroot@sha256:afa5c872c891853ca7fcf1f12c3edb23f7eeef36189728842dd51042ff57f7ab

FROM ${GO_IMAGE} AS builder
ARG BIN_DIR=/out
# What --version prints; the build context has no .git, so pass them:
#   --build-arg VERSION=$(git describe --tags --always --dirty) --build-arg COMMIT=$(git rev-parse HEAD)
# (`make build` reads them from the environment, and says "dev" without).
ARG VERSION
ARG COMMIT
WORKDIR /src
# Modules first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN make build BIN_DIR=${BIN_DIR}

FROM ${BASE_IMAGE}
COPY --from=builder /out/konnect-operator /konnect-operator
# 65532 is the distroless "nonroot" user; the Deployment runs as it too.
USER 65532:65532
EXPOSE 8443 8081
ENTRYPOINT ["/konnect-operator"]
