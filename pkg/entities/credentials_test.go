package entities

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// proofs is an OrganizationSource that records what it was asked, and
// answers per token: an organisation, or an error.
type proofs struct {
	mu      sync.Mutex
	asked   []string // "server token"
	answers map[string]error
}

func (p *proofs) Organization(_ context.Context, serverURL, token string) (konnect.Organization, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, serverURL+" "+token)
	if err := p.answers[token]; err != nil {
		return konnect.Organization{}, err
	}
	return konnect.Organization{ID: "org-of-" + token}, nil
}

func (p *proofs) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.asked)
}

const (
	tenant     = "tenant"
	victim     = "victim"
	tenantHost = "https://tenant.example.com"
)

// validAuthConfig is an auth configuration of namespace ns whose own
// controller found it valid; mutate changes it further.
func validAuthConfig(ns string, mutate func(*konnectv1alpha1.KonnectAPIAuthConfiguration)) *konnectv1alpha1.KonnectAPIAuthConfiguration {
	ac := &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "auth", UID: "uid-auth", Generation: 1},
		Spec:       konnectv1alpha1.KonnectAPIAuthConfigurationSpec{Type: konnectv1alpha1.KonnectAPIAuthTypeToken, Token: "kpat_tenant", ServerURL: tenantHost},
		Status: konnectv1alpha1.KonnectAPIAuthConfigurationStatus{
			Conditions: []metav1.Condition{controller.TrueCondition(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonValid, "")},
		},
	}
	if mutate != nil {
		mutate(ac)
	}
	return ac
}

func fromSecret(namespace, name string) func(*konnectv1alpha1.KonnectAPIAuthConfiguration) {
	return func(ac *konnectv1alpha1.KonnectAPIAuthConfiguration) {
		ac.Spec.Type, ac.Spec.Token = konnectv1alpha1.KonnectAPIAuthTypeSecretRef, ""
		ac.Spec.SecretRef = &corev1.SecretReference{Namespace: namespace, Name: name}
	}
}

func tokenSecretOf(namespace, name, token string, labels map[string]string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Data:       map[string][]byte{"token": []byte(token)},
	}
}

var tokenLabel = map[string]string{commonv1alpha1.LabelCredential: "konnect"}

// credentialRefs are Refs over caches holding the victim's token Secret
// and the tenant's, which allow the tenant's server besides Konnect's.
func credentialRefs(t *testing.T, source *proofs) *Refs {
	t.Helper()
	refs := withSecrets(testRefs())
	refs.Validations = &Validations{Konnect: source}
	allowed, err := konnect.ParseAllowedHosts(append([]string{tenantHost}, konnect.DefaultAllowedHosts...))
	if err != nil {
		t.Fatal(err)
	}
	refs.AllowedHosts = allowed
	put(t, refs.Secrets,
		tokenSecretOf(victim, "token", "kpat_victim", tokenLabel),
		tokenSecretOf(tenant, "token", "kpat_tenant", tokenLabel),
		tokenSecretOf(tenant, "unlabelled", "kpat_tenant", nil))
	return refs
}

// The one way from an auth configuration to a token: each row is what a
// tenant may try; a token is given out only where it may go, and only
// once it was proven there for the configuration as it is.
func TestCredentialsAreGivenOnlyWhereAndWhileAllowed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ac     *konnectv1alpha1.KonnectAPIAuthConfiguration
		grant  bool
		answer error
		// token is the token given out, "" when none is.
		token string
		// asked is how many proofs were asked for.
		asked   int
		refused bool
		message string
	}{
		{name: "an inline token on an allowed host", ac: validAuthConfig(tenant, nil), token: "kpat_tenant", asked: 1},
		{name: "the token of a Secret of its own namespace", ac: validAuthConfig(tenant, fromSecret("", "token")), token: "kpat_tenant", asked: 1},
		{
			name: "another namespace's Secret without a grant", ac: validAuthConfig(tenant, fromSecret(victim, "token")),
			refused: true, message: "no KongReferenceGrant allows the reference to Secret victim/token",
		},
		{name: "another namespace's Secret under a grant", ac: validAuthConfig(tenant, fromSecret(victim, "token")), grant: true, token: "kpat_victim", asked: 1},
		{
			name: "a Secret without the token label", ac: validAuthConfig(tenant, fromSecret("", "unlabelled")),
			message: "lacks the label konghq.com/credential=konnect",
		},
		{
			name: "a server not among the allowed hosts", ac: validAuthConfig(tenant, func(ac *konnectv1alpha1.KonnectAPIAuthConfiguration) { ac.Spec.ServerURL = "elsewhere.example.com" }),
			refused: true, message: "https://elsewhere.example.com is not among the Konnect API hosts",
		},
		{
			name: "a configuration its controller found invalid",
			ac: validAuthConfig(tenant, func(ac *konnectv1alpha1.KonnectAPIAuthConfiguration) {
				ac.Status.Conditions = []metav1.Condition{controller.FalseCondition(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonInvalid, "rejected")}
			}),
			message: "is not valid: rejected",
		},
		{
			name: "a token Konnect rejects when proven", ac: validAuthConfig(tenant, nil),
			answer: &konnect.AuthError{Operation: "get organization", StatusCode: 401, Message: "unauthorized"}, asked: 1,
			message: "Konnect rejected the token",
		},
		{
			name: "Konnect cannot be asked", ac: validAuthConfig(tenant, nil),
			answer: &konnect.TransientError{Operation: "get organization", StatusCode: 503, Message: "unavailable"}, asked: 1,
			message: "could not be validated with Konnect yet",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			source := &proofs{answers: map[string]error{}}
			if tc.answer != nil {
				source.answers["kpat_tenant"] = tc.answer
			}
			refs := credentialRefs(t, source)
			if tc.grant {
				put(t, refs.Grants, &configurationv1alpha1.KongReferenceGrant{
					ObjectMeta: metav1.ObjectMeta{Namespace: victim, Name: "allow"},
					Spec: configurationv1alpha1.KongReferenceGrantSpec{
						From: []configurationv1alpha1.ReferenceGrantFrom{{Group: groupKonnect, Kind: kindAuthConfig, Namespace: tenant}},
						To:   []configurationv1alpha1.ReferenceGrantTo{{Group: groupCore, Kind: kindSecret}},
					},
				})
			}
			put(t, refs.AuthConfigs, tc.ac)
			b := newResolver(t.Context(), controller.ForDelete)
			auth := refs.authOf(b, referrer{group: groupKonnect, kind: kindControlPlane, namespace: tenant}, "cp",
				&authRefToAuth)
			if auth.Token != tc.token {
				t.Errorf("token %q given out, want %q", auth.Token, tc.token)
			}
			if got := source.count(); got != tc.asked {
				t.Errorf("%d proofs asked for, want %d", got, tc.asked)
			}
			res := b.done()
			if tc.token != "" {
				if !res.Ready || auth.ServerURL != normalized(t, tc.ac.Spec.ServerURL) || auth.OrgID != "org-of-"+tc.token {
					t.Errorf("ready=%v, placed at %q in %q", res.Ready, auth.ServerURL, auth.OrgID)
				}
				// Proven once: using it again asks nothing more.
				if again := refs.authOf(newResolver(t.Context(), controller.ForSync), referrer{group: groupKonnect, kind: kindControlPlane, namespace: tenant}, "cp", &authRefToAuth); again.Token != tc.token || source.count() != tc.asked {
					t.Errorf("a second use gave %q and asked %d proofs", again.Token, source.count())
				}
				return
			}
			if res.Ready {
				t.Fatal("ready without credentials")
			}
			if got := falseMessages(res.Conditions); !strings.Contains(got, tc.message) {
				t.Errorf("conditions say %q, want %q", got, tc.message)
			}
			if (res.RefState == controller.RefRefused) != tc.refused {
				t.Errorf("reference state %v, refused=%v", res.RefState, tc.refused)
			}
		})
	}
}

// A token is proven again, before anything uses it, whenever what was
// proven changes: the token, the server, or the configuration's
// generation. The token it replaced is never given out again.
func TestCredentialsAreProvenAgainWhenTheConfigurationChanges(t *testing.T) {
	source := &proofs{answers: map[string]error{}}
	refs := credentialRefs(t, source)
	ac := validAuthConfig(tenant, fromSecret("", "token"))
	use := func() controller.Auth {
		t.Helper()
		auth, err := refs.credentials(t.Context(), ac)
		if err != nil {
			t.Fatal(err)
		}
		return auth
	}
	steps := []struct {
		name   string
		change func()
		token  string
		asked  int
	}{
		{name: "first use", change: func() {}, token: "kpat_tenant", asked: 1},
		{name: "nothing changed", change: func() {}, token: "kpat_tenant", asked: 1},
		{name: "the Secret's token replaced", change: func() {
			put(t, refs.Secrets, tokenSecretOf(tenant, "token", "kpat_rotated", tokenLabel))
		}, token: "kpat_rotated", asked: 2},
		{name: "a new generation", change: func() { ac = ac.DeepCopy(); ac.Generation = 2 }, token: "kpat_rotated", asked: 3},
		{name: "another allowed server", change: func() {
			ac = ac.DeepCopy()
			ac.Spec.ServerURL, ac.Generation = "eu.api.konghq.com", 3
		}, token: "kpat_rotated", asked: 4},
	}
	for _, step := range steps {
		step.change()
		auth := use()
		if auth.Token != step.token || source.count() != step.asked {
			t.Fatalf("%s: token %q after %d proofs, want %q after %d", step.name, auth.Token, source.count(), step.token, step.asked)
		}
		if last := source.asked[len(source.asked)-1]; last != auth.ServerURL+" "+auth.Token {
			t.Fatalf("%s: proven %q, used %q on %s", step.name, last, auth.Token, auth.ServerURL)
		}
	}
}

// A token its controller finds rejected loses its proof at once: no use
// goes on with it until it is proven again.
func TestARejectedTokenLosesItsProof(t *testing.T) {
	source := &proofs{answers: map[string]error{}}
	refs := credentialRefs(t, source)
	ac := validAuthConfig(tenant, nil)
	if _, err := refs.credentials(t.Context(), ac); err != nil {
		t.Fatal(err)
	}
	source.answers["kpat_tenant"] = &konnect.AuthError{Operation: "get organization", StatusCode: 401, Message: "revoked"}
	s := subjectOf(ac, tenantHost, "kpat_tenant")
	if _, err := refs.Validations.validate(t.Context(), s, "kpat_tenant"); !konnect.IsAuth(err) {
		t.Fatalf("validate: %v", err)
	}
	if rec, ok := refs.Validations.current(s); !ok || rec.rejection == nil {
		t.Fatal("a rejected token kept its proof")
	}
	asked := source.count()
	for range 3 {
		_, err := refs.credentials(t.Context(), ac)
		var rejected *tokenRejectedError
		if !errors.As(err, &rejected) {
			t.Fatalf("credentials after the rejection: %v", err)
		}
	}
	if source.count() != asked {
		t.Fatalf("the uses of a rejected token asked Konnect %d more times, want none", source.count()-asked)
	}
}

// authRefToAuth names the auth configuration "auth" of the referrer's
// namespace.
var authRefToAuth = konnectv1alpha2.KonnectConfiguration{AuthRef: konnectv1alpha2.KonnectAPIAuthConfigurationRef{Name: "auth"}}

func normalized(t *testing.T, serverURL string) string {
	t.Helper()
	n, err := konnect.NormalizeServerURL(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// What kubectl konnect asks before it sends a token it read with its
// user's own rights: the same as the operator.
func TestTokenSecretReadableAsTheOperatorDecides(t *testing.T) {
	grantTo := func(fromNamespace string) *configurationv1alpha1.KongReferenceGrant {
		return &configurationv1alpha1.KongReferenceGrant{
			ObjectMeta: metav1.ObjectMeta{Namespace: victim, Name: "allow"},
			Spec: configurationv1alpha1.KongReferenceGrantSpec{
				From: []configurationv1alpha1.ReferenceGrantFrom{{Group: groupKonnect, Kind: kindAuthConfig, Namespace: fromNamespace}},
				To:   []configurationv1alpha1.ReferenceGrantTo{{Group: groupCore, Kind: kindSecret}},
			},
		}
	}
	for _, tc := range []struct {
		name    string
		secret  *corev1.Secret
		grants  []*configurationv1alpha1.KongReferenceGrant
		refusal string
	}{
		{name: "its own namespace's labelled Secret", secret: tokenSecretOf(tenant, "token", "t", tokenLabel)},
		{name: "its own namespace's unlabelled Secret", secret: tokenSecretOf(tenant, "token", "t", nil), refusal: "lacks the label konghq.com/credential=konnect"},
		{name: "another namespace's Secret without a grant", secret: tokenSecretOf(victim, "token", "t", tokenLabel), refusal: "no KongReferenceGrant"},
		{name: "another namespace's Secret, a grant for a third namespace", secret: tokenSecretOf(victim, "token", "t", tokenLabel), grants: []*configurationv1alpha1.KongReferenceGrant{grantTo("third")}, refusal: "no KongReferenceGrant"},
		{name: "another namespace's Secret under a grant", secret: tokenSecretOf(victim, "token", "t", tokenLabel), grants: []*configurationv1alpha1.KongReferenceGrant{grantTo(tenant)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := TokenSecretReadable(validAuthConfig(tenant, fromSecret(tc.secret.Namespace, tc.secret.Name)), tc.secret, tc.grants)
			switch {
			case tc.refusal == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refusal != "" && (err == nil || !strings.Contains(err.Error(), tc.refusal)):
				t.Fatalf("%v, want a refusal saying %q", err, tc.refusal)
			}
		})
	}
}
