package entities

import (
	"bytes"
	"crypto/sha256"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// ClientReleaser releases what is kept for a token: its Konnect clients
// (konnect.ClientFactory.Forget).
type ClientReleaser interface {
	Forget(serverURL, token string)
}

// releaseReplacedTokens releases the clients of every token a
// configuration stops using: its inline token, server or Secret reference
// replaced, its Secret's token replaced or the Secret gone, the
// configuration gone. A token another configuration still uses now keeps
// its clients. Nothing else is needed for the token not to be sent again:
// every use proves the token it reads now (see credentials).
func (r *AuthConfigReconciler) releaseReplacedTokens() error {
	if r.KonnectClients == nil {
		return nil
	}
	if _, err := r.Refs.AuthConfigs.AddEventHandler(cache.TypedResourceEventHandlerFuncs[authConfig]{
		UpdateFunc: func(before, after authConfig) {
			if before.ResourceVersion != after.ResourceVersion {
				r.releaseConfig(before, after)
			}
		},
		DeleteFunc: func(deleted cache.DeletedObject[authConfig]) {
			if deleted.OptionalObj != nil {
				r.releaseConfig(deleted.OptionalObj, nil)
			}
		},
	}); err != nil {
		return err
	}
	_, err := r.Refs.Secrets.AddEventHandler(cache.TypedResourceEventHandlerFuncs[*corev1.Secret]{
		UpdateFunc: func(before, after *corev1.Secret) {
			if !tokenSecretLabel.on(before) {
				return
			}
			if tokenSecretLabel.on(after) && bytes.Equal(before.Data["token"], after.Data["token"]) {
				return
			}
			r.releaseSecret(before)
		},
		DeleteFunc: func(deleted cache.DeletedObject[*corev1.Secret]) {
			if s := deleted.OptionalObj; s != nil && tokenSecretLabel.on(s) {
				r.releaseSecret(s)
			}
		},
	})
	return err
}

// releaseConfig releases the token before resolved to when after (nil when
// the configuration is gone) resolves to another server or token.
func (r *AuthConfigReconciler) releaseConfig(before, after authConfig) {
	oldServer, oldToken, ok := r.resolvedToken(before)
	if !ok {
		return
	}
	if after != nil {
		if newServer, newToken, ok := r.resolvedToken(after); ok && newServer == oldServer && newToken == oldToken {
			return
		}
	}
	r.release(oldServer, oldToken, map[cache.ObjectName]bool{cache.MetaObjectToName(before): true})
}

// releaseSecret releases the token a token Secret held before it changed
// or went, for the server of each configuration allowed to read it.
func (r *AuthConfigReconciler) releaseSecret(before *corev1.Secret) {
	token := string(before.Data["token"])
	if token == "" {
		return
	}
	readers := map[cache.ObjectName]bool{}
	servers := map[string]bool{}
	secretKey := key(before.Namespace, before.Name)
	for _, ac := range r.Refs.AuthConfigs.List() {
		keys := tokenSecretKeys(ac)
		if len(keys) == 0 || keys[0] != secretKey ||
			!r.Refs.permitted(authConfigReferrer(ac), groupCore, kindSecret, before.Namespace, before.Name) {
			continue
		}
		readers[cache.MetaObjectToName(ac)] = true
		if serverURL, err := konnect.NormalizeServerURL(ac.Spec.ServerURL); err == nil {
			servers[serverURL] = true
		}
	}
	for serverURL := range servers {
		r.release(serverURL, token, readers)
	}
}

// release forgets the clients of token on serverURL unless a configuration
// other than those in except holds a proof of it.
func (r *AuthConfigReconciler) release(serverURL, token string, except map[cache.ObjectName]bool) {
	if r.Refs.Validations.inUse(serverURL, sha256.Sum256([]byte(token)), except) {
		return
	}
	r.KonnectClients.Forget(serverURL, token)
}

// resolvedToken is the server and token ac resolves to, as far as it may
// read one: a token it was never allowed to read has no clients to
// release.
func (r *AuthConfigReconciler) resolvedToken(ac authConfig) (serverURL, token string, ok bool) {
	serverURL, err := konnect.NormalizeServerURL(ac.Spec.ServerURL)
	if err != nil {
		return "", "", false
	}
	token, err = r.Refs.readToken(ac)
	return serverURL, token, err == nil
}
