package metricsauth

import (
	"context"
	"crypto/sha256"
	"net/http"
	"strings"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authenticationclient "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Cache lifetimes of decisions, as the API server's own webhook
// authenticator and authorizer use by default: an allowed caller is asked
// about again after a while, a refused one sooner.
const (
	allowedTTL = 2 * time.Minute
	deniedTTL  = 10 * time.Second
	// maxCached bounds the cache; it is emptied when full (callers are few:
	// Prometheus and people with kubectl).
	maxCached = 1024
)

// Authorizer asks the API server who a bearer token belongs to and whether
// that user may GET the requested path.
type Authorizer struct {
	tokens  authenticationclient.TokenReviewInterface
	access  authorizationclient.SubjectAccessReviewInterface
	clock   clock.PassiveClock
	mu      sync.Mutex
	decided map[decisionKey]decision
}

type decisionKey struct {
	token      [sha256.Size]byte // a hash: the cache holds no token
	verb, path string
}

type decision struct {
	status  int // http.StatusOK, StatusUnauthorized or StatusForbidden
	user    string
	expires time.Time
}

// New returns an Authorizer that asks through the given clients.
func New(tokens authenticationclient.TokenReviewInterface, access authorizationclient.SubjectAccessReviewInterface) *Authorizer {
	return &Authorizer{tokens: tokens, access: access, clock: clock.RealClock{}, decided: map[decisionKey]decision{}}
}

// Wrap returns a handler that serves next only to callers the API server
// authenticates and authorises: 401 without a valid token, 403 without
// access, 503 when the API server cannot be asked.
func (a *Authorizer) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearerToken(r)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="konnect-operator"`)
			http.Error(w, "Unauthorized: a bearer token is required", http.StatusUnauthorized)
			return
		}
		d, err := a.decide(r.Context(), token, strings.ToLower(r.Method), r.URL.Path)
		if err != nil {
			klog.FromContext(r.Context()).V(2).Info("Could not check a caller of the metrics endpoint", "err", err)
			http.Error(w, "the API server could not check the caller", http.StatusServiceUnavailable)
			return
		}
		switch d.status {
		case http.StatusUnauthorized:
			w.Header().Set("WWW-Authenticate", `Bearer realm="konnect-operator"`)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
		case http.StatusForbidden:
			http.Error(w, "Forbidden: user \""+d.user+"\" may not "+strings.ToLower(r.Method)+" "+r.URL.Path, http.StatusForbidden)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func bearerToken(r *http.Request) (string, bool) {
	scheme, token, found := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	token = strings.TrimSpace(token)
	return token, found && strings.EqualFold(scheme, "Bearer") && token != ""
}

// decide returns the cached decision for the token, verb and path, or asks
// the API server.
func (a *Authorizer) decide(ctx context.Context, token, verb, path string) (decision, error) {
	k := decisionKey{token: sha256.Sum256([]byte(token)), verb: verb, path: path}
	now := a.clock.Now()
	a.mu.Lock()
	d, ok := a.decided[k]
	a.mu.Unlock()
	if ok && now.Before(d.expires) {
		return d, nil
	}
	d, err := a.ask(ctx, token, verb, path)
	if err != nil {
		return decision{}, err
	}
	d.expires = now.Add(deniedTTL)
	if d.status == http.StatusOK {
		d.expires = now.Add(allowedTTL)
	}
	a.mu.Lock()
	if len(a.decided) >= maxCached {
		clear(a.decided)
	}
	a.decided[k] = d
	a.mu.Unlock()
	return d, nil
}

func (a *Authorizer) ask(ctx context.Context, token, verb, path string) (decision, error) {
	review, err := a.tokens.Create(ctx, &authenticationv1.TokenReview{
		Spec: authenticationv1.TokenReviewSpec{Token: token},
	}, metav1.CreateOptions{})
	if err != nil {
		return decision{}, err
	}
	if !review.Status.Authenticated {
		return decision{status: http.StatusUnauthorized}, nil
	}
	user := review.Status.User
	extra := make(map[string]authorizationv1.ExtraValue, len(user.Extra))
	for k, v := range user.Extra {
		extra[k] = authorizationv1.ExtraValue(v)
	}
	sar, err := a.access.Create(ctx, &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User:                  user.Username,
			Groups:                user.Groups,
			UID:                   user.UID,
			Extra:                 extra,
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: path, Verb: verb},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return decision{}, err
	}
	if !sar.Status.Allowed {
		return decision{status: http.StatusForbidden, user: user.Username}, nil
	}
	return decision{status: http.StatusOK, user: user.Username}, nil
}
