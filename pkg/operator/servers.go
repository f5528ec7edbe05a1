package operator

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"k8s.io/klog/v2"

	"github.com/konnect-operator/konnect-operator/pkg/metrics"
	"github.com/konnect-operator/konnect-operator/pkg/metricsauth"
)

// MetricsServing configures how /metrics is served.
type MetricsServing struct {
	// InsecureLoopback serves /metrics over plain HTTP without
	// authentication, on a loopback address only (for make run and local
	// debugging). Otherwise it is served over HTTPS to callers that the API
	// server authenticates (TokenReview) and authorises to GET the path
	// (SubjectAccessReview, non-resource URL /metrics).
	InsecureLoopback bool
	// CertFile and KeyFile hold the serving certificate (PEM); empty means
	// a self-signed certificate made at start, as Kubernetes components do.
	CertFile, KeyFile string
}

// server is a bound listener and what it serves.
type server struct {
	name     string
	listener net.Listener
	srv      *http.Server
}

// listen binds the metrics and health addresses, so that a port in use
// stops the start at once.
func (o *Operator) listen(ctx context.Context) ([]*server, error) {
	var servers []*server
	closeAll := func() {
		for _, s := range servers {
			_ = s.listener.Close()
		}
	}
	if o.cfg.MetricsAddr != "" {
		s, err := o.metricsServer()
		if err != nil {
			return nil, err
		}
		servers = append(servers, s)
	}
	if o.cfg.HealthAddr != "" {
		ln, err := net.Listen("tcp", o.cfg.HealthAddr)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("serving health probes: %w", err)
		}
		servers = append(servers, newServer("health", ln, o.healthMux()))
	}
	if o.cfg.ProfilerAddr != "" {
		s, err := profilerServer(o.cfg.ProfilerAddr)
		if err != nil {
			closeAll()
			return nil, err
		}
		servers = append(servers, s)
	}
	for _, s := range servers {
		klog.FromContext(ctx).Info("Serving", "server", s.name, "address", s.listener.Addr().String())
	}
	return servers, nil
}

func (o *Operator) metricsServer() (*server, error) {
	m := o.cfg.Metrics
	if m.InsecureLoopback {
		addr, err := loopbackAddress(o.cfg.MetricsAddr)
		if err != nil {
			return nil, err
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("serving metrics: %w", err)
		}
		return newServer("metrics (plain HTTP, loopback)", ln, o.metricsMux()), nil
	}
	cert, err := servingCertificate(m.CertFile, m.KeyFile)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.cfg.MetricsAddr)
	if err != nil {
		return nil, fmt.Errorf("serving metrics: %w", err)
	}
	tlsConfig := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
	authz := metricsauth.New(o.unfenced.AuthenticationV1().TokenReviews(), o.unfenced.AuthorizationV1().SubjectAccessReviews())
	s := newServer("metrics (HTTPS, TokenReview and SubjectAccessReview)", tls.NewListener(ln, tlsConfig), authz.Wrap(o.metricsMux()))
	return s, nil
}

// profilerServer serves Go's profiles on a loopback address: a profile
// shows the process's inner workings, so it is reached from inside the pod
// (kubectl port-forward) and never from the network.
func profilerServer(addr string) (*server, error) {
	addr, err := loopbackAddress(addr)
	if err != nil {
		return nil, fmt.Errorf("profiler: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("serving profiles: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return newServer("profiler (plain HTTP, loopback)", ln, mux), nil
}

// loopbackAddress checks that addr is on a loopback interface; a missing
// host means 127.0.0.1.
func loopbackAddress(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("address %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", fmt.Errorf("plain HTTP is only served on a loopback address, not %q", host)
	}
	return net.JoinHostPort(host, port), nil
}

func newServer(name string, ln net.Listener, handler http.Handler) *server {
	return &server{name: name, listener: ln, srv: &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}}
}

// serve runs the server until ctx is cancelled, then shuts it down.
func (s *server) serve(ctx context.Context) error {
	errs := make(chan error, 1)
	go func() { errs <- s.srv.Serve(s.listener) }()
	select {
	case err := <-errs:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serving %s on %s: %w", s.name, s.listener.Addr(), err)
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		return s.srv.Shutdown(shutdownCtx)
	}
}

func (o *Operator) metricsMux() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", metrics.HandlerFor(metrics.WithShard(o.registry, o.cfg.Shard), o.registry))
	return mux
}

func (o *Operator) healthMux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if o.electionHealth != nil {
			if err := o.electionHealth.Check(r); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		_, _ = w.Write([]byte("ok"))
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !o.synced.Load() {
			http.Error(w, "caches have not synced yet", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	return mux
}
