package metricsauth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
)

// apiServer answers TokenReviews and SubjectAccessReviews like the API
// server would for a few known tokens, and counts the questions.
type apiServer struct {
	users   map[string]string // token -> user name
	allowed map[string]bool   // user name -> may GET /metrics
	down    bool
	reviews atomic.Int32
	checks  atomic.Int32
	lastSAR authorizationv1.SubjectAccessReviewSpec
}

func (s *apiServer) authorizer() (*Authorizer, *clocktesting.FakeClock) {
	client := fake.NewClientset()
	client.PrependReactor("create", "tokenreviews", func(action k8stesting.Action) (bool, runtime.Object, error) {
		s.reviews.Add(1)
		if s.down {
			return true, nil, errors.New("connection refused")
		}
		review := action.(k8stesting.CreateAction).GetObject().(*authenticationv1.TokenReview)
		if name, ok := s.users[review.Spec.Token]; ok {
			review.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{
				Username: name, Groups: []string{"system:authenticated"}, Extra: map[string]authenticationv1.ExtraValue{"k": {"v"}},
			}}
		}
		return true, review, nil
	})
	client.PrependReactor("create", "subjectaccessreviews", func(action k8stesting.Action) (bool, runtime.Object, error) {
		s.checks.Add(1)
		sar := action.(k8stesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		s.lastSAR = sar.Spec
		attrs := sar.Spec.NonResourceAttributes
		sar.Status.Allowed = s.allowed[sar.Spec.User] && attrs != nil && attrs.Path == "/metrics" && attrs.Verb == "get"
		return true, sar, nil
	})
	a := New(client.AuthenticationV1().TokenReviews(), client.AuthorizationV1().SubjectAccessReviews())
	clock := clocktesting.NewFakeClock(time.Now())
	a.clock = clock
	return a, clock
}

func get(t *testing.T, h http.Handler, path, token string) int {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

var served = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("metrics")) })

func TestOnlyAuthorisedCallersGetTheMetrics(t *testing.T) {
	s := &apiServer{
		users:   map[string]string{"prometheus-token": "system:serviceaccount:monitoring:prometheus-k8s", "other-token": "system:serviceaccount:default:default"},
		allowed: map[string]bool{"system:serviceaccount:monitoring:prometheus-k8s": true},
	}
	a, _ := s.authorizer()
	h := a.Wrap(served)
	cases := []struct {
		name, path, token string
		want              int
	}{
		{"no token", "/metrics", "", http.StatusUnauthorized},
		{"unknown token", "/metrics", "forged", http.StatusUnauthorized},
		{"a user without the role", "/metrics", "other-token", http.StatusForbidden},
		{"a user with the role", "/metrics", "prometheus-token", http.StatusOK},
		{"a user with the role, elsewhere", "/debug", "prometheus-token", http.StatusForbidden},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := get(t, h, c.path, c.token); got != c.want {
				t.Fatalf("GET %s answered %d, want %d", c.path, got, c.want)
			}
		})
	}
	if len(s.lastSAR.Groups) == 0 || s.lastSAR.Extra["k"][0] != "v" {
		t.Errorf("the SubjectAccessReview did not carry the user's groups and extra: %+v", s.lastSAR)
	}
}

func TestDecisionsAreCachedBriefly(t *testing.T) {
	s := &apiServer{
		users:   map[string]string{"allowed": "prometheus", "denied": "nobody"},
		allowed: map[string]bool{"prometheus": true},
	}
	a, clock := s.authorizer()
	h := a.Wrap(served)
	for range 5 {
		get(t, h, "/metrics", "allowed")
		get(t, h, "/metrics", "denied")
	}
	if got := s.reviews.Load(); got != 2 {
		t.Fatalf("%d TokenReviews for two callers asking five times each, want 2", got)
	}
	clock.Step(deniedTTL + time.Second)
	get(t, h, "/metrics", "allowed")
	get(t, h, "/metrics", "denied")
	if got := s.reviews.Load(); got != 3 {
		t.Fatalf("after %s only the refused caller is asked about again: %d TokenReviews, want 3", deniedTTL, got)
	}
	clock.Step(allowedTTL)
	get(t, h, "/metrics", "allowed")
	if got := s.reviews.Load(); got != 4 {
		t.Fatalf("after %s the allowed caller is asked about again: %d TokenReviews, want 4", allowedTTL, got)
	}
}

func TestAnAPIServerThatCannotBeAskedIsNoAnswer(t *testing.T) {
	s := &apiServer{users: map[string]string{"t": "u"}, allowed: map[string]bool{"u": true}, down: true}
	a, _ := s.authorizer()
	h := a.Wrap(served)
	if got := get(t, h, "/metrics", "t"); got != http.StatusServiceUnavailable {
		t.Fatalf("answered %d while the API server is down, want 503", got)
	}
	s.down = false
	if got := get(t, h, "/metrics", "t"); got != http.StatusOK {
		t.Fatalf("answered %d once the API server is back, want 200 (a failure must not be cached)", got)
	}
}
