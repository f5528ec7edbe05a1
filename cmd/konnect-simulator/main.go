// Command konnect-simulator serves an in-memory Kong Konnect API over HTTPS
// for tests, benchmarks and demos. See pkg/konnectsim.
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// repeated collects a repeatable string flag.
type repeated []string

func (r *repeated) String() string     { return fmt.Sprint(len(*r)) + " values" }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

type config struct {
	listen, certFile, keyFile, caOut, spec, tokenFile string
	tokens, faults, providerAccounts                  repeated
	rateLimit, force429                               int
	force429After, provisioningTime, terminationTime  time.Duration
	latency                                           time.Duration
	omitRetryAfter, noValidation, quiet               bool
	faultSeed                                         uint64
}

func main() {
	var cfg config
	fs := flag.NewFlagSet("konnect-simulator", flag.ExitOnError)
	fs.StringVar(&cfg.listen, "listen", "127.0.0.1:8443", "address to serve HTTPS on")
	fs.StringVar(&cfg.certFile, "tls-cert-file", "", "serving certificate (PEM); empty = a self-signed one for 127.0.0.1 and localhost")
	fs.StringVar(&cfg.keyFile, "tls-key-file", "", "private key of --tls-cert-file (PEM)")
	fs.StringVar(&cfg.caOut, "ca-out", "", "write the self-signed certificate (the CA to trust) to this file")
	fs.Var(&cfg.tokens, "token", "accepted token, TOKEN or TOKEN=ORG (repeatable); a bare token is an organisation of its own, tokens naming the same ORG share it")
	fs.StringVar(&cfg.tokenFile, "token-file", "", "file of TOKEN or TOKEN=ORG lines (# comments), to keep tokens off the command line")
	fs.IntVar(&cfg.rateLimit, "rate-limit-per-minute", 0, "requests per organisation per minute; 0 = unlimited (Konnect has been seen at 3000)")
	fs.BoolVar(&cfg.omitRetryAfter, "rate-limit-omit-retry-after", false, "leave Retry-After out of 429s (clients must use RateLimit-Reset)")
	fs.Var(&cfg.faults, "fault", "OPERATION=SETTINGS (repeatable): OPERATION is an operationId, 'METHOD /template' or '*'; SETTINGS e.g. rate:0.1,status:503,latency:200ms,hang,hangfor:5s,after,times:3; status:429 answers as Konnect's connection-level limiter does, without Retry-After or RateLimit headers; a request meets its operation's faults, then '*'")
	fs.DurationVar(&cfg.latency, "latency", 0, "how late every Konnect request is handled, as across a network (Konnect answers 100ms and more after a request); not a fault: a fault's latency comes on top of it, and clearing the faults leaves it")
	fs.IntVar(&cfg.force429, "force-429", 0, "answer the next N authenticated requests with 429")
	fs.DurationVar(&cfg.force429After, "force-429-retry-after", time.Second, "Retry-After of --force-429 answers")
	fs.Uint64Var(&cfg.faultSeed, "fault-seed", 1, "seed for fault error rates")
	fs.StringVar(&cfg.spec, "openapi-spec", "", "OpenAPI document to validate against; empty = $"+konnectsim.SpecEnv+", else the openapi.yaml of "+konnectsim.SDKModule+" (found with go list -m from the working directory)")
	fs.BoolVar(&cfg.noValidation, "no-validation", false, "do not validate requests and responses")
	fs.BoolVar(&cfg.quiet, "quiet", false, "do not log every request")
	fs.DurationVar(&cfg.provisioningTime, "cloud-gateway-provisioning-time", 5*time.Second, "how long cloud-gateway networks, transit gateways and data-plane groups stay initializing (Konnect takes minutes)")
	fs.DurationVar(&cfg.terminationTime, "cloud-gateway-termination-time", 2*time.Second, "how long they stay terminating after a delete")
	fs.Var(&cfg.providerAccounts, "provider-account", "PROVIDER=ID[=CLOUD_ACCOUNT_ID] (repeatable): a cloud provider account linked to every organisation, besides one per provider")
	_ = fs.Parse(os.Args[1:])

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, cfg, logger, nil)
	stop()
	if err != nil {
		logger.Error("konnect-simulator failed", "err", err)
		os.Exit(1)
	}
}

// run serves until ctx ends; ready, when set, receives the base URL once
// the listener is up.
func run(ctx context.Context, cfg config, logger *slog.Logger, ready func(url string)) error {
	tokens, err := loadTokens(cfg.tokens, cfg.tokenFile)
	if err != nil {
		return err
	}
	if len(tokens) == 0 {
		return errors.New("no tokens: give --token or --token-file")
	}
	opts := konnectsim.Options{
		Tokens: tokens, SpecPath: cfg.spec, NoValidation: cfg.noValidation,
		RateLimitPerMinute: cfg.rateLimit, OmitRetryAfter: cfg.omitRetryAfter, Latency: cfg.latency,
		CloudGateways: konnectsim.CloudGatewayOptions{ProvisioningTime: cfg.provisioningTime, TerminationTime: cfg.terminationTime},
	}
	for _, spec := range cfg.providerAccounts {
		account, err := konnectsim.ParseProviderAccountSpec(spec)
		if err != nil {
			return err
		}
		opts.CloudGateways.ProviderAccounts = append(opts.CloudGateways.ProviderAccounts, account)
	}
	if !cfg.quiet {
		opts.Logger = logger
	}
	sim, err := konnectsim.New(opts)
	if err != nil {
		return err
	}
	sim.Faults().Seed(cfg.faultSeed)
	for _, spec := range cfg.faults {
		op, f, err := konnectsim.ParseFaultSpec(spec)
		if err != nil {
			return err
		}
		sim.Faults().Set(op, f)
	}
	if cfg.force429 > 0 {
		sim.Faults().Force429(cfg.force429, cfg.force429After)
	}

	cert, err := servingCertificate(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           sim,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
	}
	validating, specPath := sim.Validating()
	logger.Info("serving", "url", "https://"+ln.Addr().String(), "validation", validating, "spec", specPath,
		"rateLimitPerMinute", cfg.rateLimit, "inspect", "https://"+ln.Addr().String()+"/_sim/")
	for _, o := range sim.Organizations() {
		logger.Info("organisation", "id", o.ID, "name", o.Name)
	}

	if ready != nil {
		ready("https://" + ln.Addr().String())
	}
	errCh := make(chan error, 1)
	go func() { errCh <- srv.ServeTLS(ln, "", "") }()
	select {
	case err := <-errCh:
		return err
	case <-ctx.Done():
	}
	sim.Close()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	for _, v := range sim.Violations() {
		logger.Warn("OpenAPI violation", "violation", v.Error())
	}
	return nil
}

// loadTokens merges --token flags and --token-file lines into token -> organisation.
func loadTokens(flags []string, file string) (map[string]string, error) {
	specs := append([]string(nil), flags...)
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer func() { _ = f.Close() }()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line != "" && !strings.HasPrefix(line, "#") {
				specs = append(specs, line)
			}
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	tokens := map[string]string{}
	for i, spec := range specs {
		token, org, err := konnectsim.ParseTokenSpec(spec)
		if err != nil {
			return nil, fmt.Errorf("token %d: %w", i+1, err)
		}
		tokens[token] = org
	}
	return tokens, nil
}

// servingCertificate loads the configured certificate or makes a
// self-signed one, writing its PEM to --ca-out.
func servingCertificate(cfg config) (tls.Certificate, error) {
	if cfg.certFile != "" || cfg.keyFile != "" {
		return tls.LoadX509KeyPair(cfg.certFile, cfg.keyFile)
	}
	host, _, _ := net.SplitHostPort(cfg.listen)
	cert, caPEM, err := konnectsim.SelfSignedCertificate(host)
	if err != nil {
		return cert, err
	}
	if cfg.caOut != "" {
		if err := os.WriteFile(cfg.caOut, caPEM, 0o644); err != nil { //nolint:gosec // a public certificate
			return cert, err
		}
	}
	return cert, nil
}
