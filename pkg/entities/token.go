package entities

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
)

// errTokenUnavailable wraps the reasons a token cannot be read.
var errTokenUnavailable = errors.New("token unavailable")

// errTokenInvalid wraps what makes a token unusable as it is.
var errTokenInvalid = errors.New("invalid token")

// secretNotPermittedError is a token Secret in another namespace than its
// configuration's that no KongReferenceGrant lets the configuration read.
type secretNotPermittedError struct {
	// grant names the reference and the grant that would allow it.
	grant string
}

func (e *secretNotPermittedError) Error() string {
	return "no KongReferenceGrant allows the reference to " + e.grant
}

// token returns the token of a KonnectAPIAuthConfiguration, inline or from
// its Secret. A Secret is read only when the configuration may read it now
// (its own namespace, or a KongReferenceGrant of the Secret's) and it
// carries the label of token Secrets.
func (r *Refs) token(ac authConfig) (string, error) {
	token, err := r.readToken(ac)
	if err != nil {
		return "", err
	}
	// Go refuses such a header value, and the answer would only say
	// "invalid header field value".
	if trimmed := strings.TrimRight(token, "\r\n"); trimmed != token && !strings.ContainsAny(trimmed, "\r\n") {
		return "", fmt.Errorf("%w: the token ends with a newline (write it without one: printf %%s \"$TOKEN\", or kubectl create secret --from-literal)", errTokenInvalid)
	}
	if strings.ContainsAny(token, "\r\n") {
		return "", fmt.Errorf("%w: the token contains a line break", errTokenInvalid)
	}
	return token, nil
}

func (r *Refs) readToken(ac authConfig) (string, error) {
	switch ac.Spec.Type {
	case konnectv1alpha1.KonnectAPIAuthTypeToken:
		if ac.Spec.Token == "" {
			return "", fmt.Errorf("%w: spec.token is empty", errTokenUnavailable)
		}
		return ac.Spec.Token, nil
	case konnectv1alpha1.KonnectAPIAuthTypeSecretRef:
		ref := ac.Spec.SecretRef
		if ref == nil || ref.Name == "" {
			return "", fmt.Errorf("%w: spec.secretRef is not set", errTokenUnavailable)
		}
		namespace := namespaceOr(ref.Namespace, ac.Namespace)
		if from := authConfigReferrer(ac); !r.permitted(from, groupCore, kindSecret, namespace, ref.Name) {
			return "", &secretNotPermittedError{grant: grantFor(from, groupCore, kindSecret, namespace, ref.Name)}
		}
		secret, err := r.Secrets.Get(namespace, ref.Name)
		if apierrors.IsNotFound(err) {
			return "", fmt.Errorf("%w: %w", errTokenUnavailable, &uncachedSecretError{namespace: namespace, name: ref.Name, label: tokenSecretLabel})
		}
		if err != nil {
			return "", err
		}
		if !tokenSecretLabel.on(secret) {
			return "", fmt.Errorf("%w: %w", errTokenUnavailable, unlabelled(namespace, ref.Name, tokenSecretLabel, hasLabel(secret.Labels, tokenSecretLabel.key)))
		}
		token := string(secret.Data["token"])
		if token == "" {
			return "", fmt.Errorf("%w: Secret %s/%s has no data key \"token\"", errTokenUnavailable, namespace, ref.Name)
		}
		return token, nil
	default:
		return "", fmt.Errorf("%w: unknown spec.type %q", errTokenUnavailable, ac.Spec.Type)
	}
}

// authConfigReferrer is a configuration as the referrer of its Secret.
func authConfigReferrer(ac authConfig) referrer {
	return referrer{group: groupKonnect, kind: kindAuthConfig, namespace: ac.Namespace}
}

// TokenSecretReadable says whether ac may take its token from secret, as
// the operator decides it, for tools that read the Secret with their
// user's own rights (kubectl konnect): a Secret of another namespace needs
// one of grants (the KongReferenceGrants of the Secret's namespace) to
// allow it, and every token Secret needs the label
// konghq.com/credential=konnect. nil when it may.
func TokenSecretReadable(ac *konnectv1alpha1.KonnectAPIAuthConfiguration, secret *corev1.Secret, grants []*configurationv1alpha1.KongReferenceGrant) error {
	if secret.Namespace != ac.Namespace {
		from := authConfigReferrer(ac)
		if !slices.ContainsFunc(grants, func(g *configurationv1alpha1.KongReferenceGrant) bool {
			return g.Namespace == secret.Namespace && grantAllows(g, from, groupCore, kindSecret, secret.Name)
		}) {
			return &secretNotPermittedError{grant: grantFor(from, groupCore, kindSecret, secret.Namespace, secret.Name)}
		}
	}
	if !tokenSecretLabel.on(secret) {
		return unlabelled(secret.Namespace, secret.Name, tokenSecretLabel, hasLabel(secret.Labels, tokenSecretLabel.key))
	}
	return nil
}
