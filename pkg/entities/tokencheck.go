package entities

import (
	"context"
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// What the controller of KonnectAPIAuthConfigurations (package companions)
// needs of tokens and of the grants around them. The token stays inside
// this package: it is read as every use reads it (token), proven with
// Konnect into the Validations that every use consults, and never handed
// out.

// TokenToCheck is the token a configuration resolves to now, read for the
// configuration's own check on one server. It can be proven; it cannot be
// read back.
type TokenToCheck struct {
	subject subject
	token   string
}

// Proof is what Konnect said of a token when it was last asked: valid for
// organisation OrgID, at At.
type Proof struct {
	OrgID string
	At    time.Time
}

// AllowedServer normalises a configuration's server URL and checks it
// against the hosts tokens may go to; the error is a
// konnect.InvalidInputError or a konnect.NotAllowedError.
func (r *Refs) AllowedServer(raw string) (string, error) { return r.allowedServer(raw) }

// ReadTokenToCheck reads ac's token as every use reads it (a Secret of
// another namespace only under a grant, and only with the token label),
// for its check on serverURL, which AllowedServer returned. An error says
// why it cannot be read or sent (IsTokenInvalid, IsSecretAbsent), the
// Secret that the cache does not hold explained.
func (r *Refs) ReadTokenToCheck(ctx context.Context, ac authConfig, serverURL string) (TokenToCheck, error) {
	token, err := r.token(ac)
	if err != nil {
		return TokenToCheck{}, r.explainUncached(ctx, err)
	}
	return TokenToCheck{subject: subjectOf(ac, serverURL, token), token: token}, nil
}

// Proven returns the proof of t, if Konnect's last answer about this very
// configuration generation, server and token was that it is valid.
func (v *Validations) Proven(t TokenToCheck) (Proof, bool) {
	rec, ok := v.current(t.subject)
	if !ok || rec.rejection != nil {
		return Proof{}, false
	}
	return Proof{OrgID: rec.orgID, At: rec.at}, true
}

// Prove asks Konnect whether t is valid and records the answer for every
// use of the token (see validate).
func (v *Validations) Prove(ctx context.Context, t TokenToCheck) (Proof, error) {
	rec, err := v.validate(ctx, t.subject, t.token)
	if err != nil {
		return Proof{}, err
	}
	return Proof{OrgID: rec.orgID, At: rec.at}, nil
}

// Forget drops the record of the configuration with key k: its token is no
// longer proven valid (rejected, refused, or the configuration is gone).
func (v *Validations) Forget(k cache.ObjectName) { v.forget(k) }

// IsTokenInvalid reports whether err says that a token cannot be sent as
// it is (a line break in it).
func IsTokenInvalid(err error) bool { return errors.Is(err, errTokenInvalid) }

// IsSecretAbsent reports whether err is about a Secret that is not there
// (yet), rather than one that must change.
func IsSecretAbsent(err error) bool { return secretAbsent(err) }

// IsTokenSecret reports whether secret carries the label of token Secrets
// (konghq.com/credential=konnect), without which no token is read from it.
func IsTokenSecret(secret *corev1.Secret) bool { return tokenSecretLabel.on(secret) }

// TokenSecretRefusal returns nil when ac may read its token from the Secret
// namespace/name (its own namespace, or a KongReferenceGrant there allows
// it), else an error naming the grant that would allow it.
func (r *Refs) TokenSecretRefusal(ac authConfig, namespace, name string) error {
	from := authConfigReferrer(ac)
	if r.permitted(from, groupCore, kindSecret, namespace, name) {
		return nil
	}
	return &secretNotPermittedError{grant: grantFor(from, groupCore, kindSecret, namespace, name)}
}

// MayUseAuthConfig reports whether an object of the given kind (of the
// group konnect.konghq.com) in namespace may use the configuration ac: the
// same namespace, or a KongReferenceGrant of ac's allows it.
func (r *Refs) MayUseAuthConfig(kind, namespace string, ac cache.ObjectName) bool {
	from := referrer{group: groupKonnect, kind: kind, namespace: namespace}
	return r.permitted(from, groupKonnect, kindAuthConfig, ac.Namespace, ac.Name)
}
