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
# Base images are pinned to exact versions. Pin them to digests as well when
# you build (resolve them with `docker buildx imagetools inspect <image>` or
# `crane digest <image>`):
#   docker build --build-arg GO_IMAGE=golang:1.26.8-bookworm@sha256:<digest> \
#     --build-arg BASE_IMAGE=gcr.io/distroless/static-debian12:nonroot@sha256:<digest> .
ARG GO_IMAGE=golang:1.26.8-bookworm
ARG BASE_IMAGE=gcr.io/distroless/static-debian12:nonroot

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
