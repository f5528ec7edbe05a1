package entities

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// Validations remember, in memory, which token each
// KonnectAPIAuthConfiguration proved valid with Konnect (GET
// /v3/organizations/me), for which server and which generation of the
// configuration. A token is only sent where such a record says it was
// proven valid, by the configuration as it is now: a change of the token
// (inline, its Secret's content, or which Secret), of the server URL, or
// anything else that makes a new generation, validates again before
// anything else uses the token. Nothing survives a restart: the first use
// after one validates first (one request per configuration).
//
// Records hold a hash of the token, never the token.
type Validations struct {
	// Konnect asks whose token it is.
	Konnect OrganizationSource
	// Clock stamps the records; nil means the real clock.
	Clock clock.PassiveClock

	mu       sync.Mutex
	records  map[cache.ObjectName]validation
	inFlight map[validationKey]*validationCall
}

// OrganizationSource asks Konnect whose token it is (GET
// /v3/organizations/me), which also proves the token valid.
type OrganizationSource interface {
	Organization(ctx context.Context, serverURL, token string) (konnect.Organization, error)
}

// validation is one token proven valid, or found rejected (rejection is
// then Konnect's answer): a rejected token is not asked about again on
// every use, only by its configuration's own periodic check.
type validation struct {
	subject
	orgID     string
	at        time.Time
	rejection error
}

// subject is what a validation is of: a configuration as it is now, the
// server its token goes to and the token (by hash).
type subject struct {
	key        cache.ObjectName
	uid        types.UID
	generation int64
	serverURL  string
	tokenHash  [sha256.Size]byte
}

// subjectOf describes ac with the normalised server URL and token it
// resolves to now.
func subjectOf(ac authConfig, serverURL, token string) subject {
	return subject{
		key: cache.MetaObjectToName(ac), uid: ac.UID, generation: ac.Generation,
		serverURL: serverURL, tokenHash: sha256.Sum256([]byte(token)),
	}
}

type validationKey struct {
	key       cache.ObjectName
	serverURL string
	tokenHash [sha256.Size]byte
}

func (s subject) validationKey() validationKey {
	return validationKey{key: s.key, serverURL: s.serverURL, tokenHash: s.tokenHash}
}

// validationCall is a validation on its way; done is closed once result
// and err are set.
type validationCall struct {
	done   chan struct{}
	result validation
	err    error
}

func (v *Validations) now() time.Time {
	if v.Clock == nil {
		return time.Now()
	}
	return v.Clock.Now()
}

// current returns the record of s, if there is one: a proof, or a
// rejection.
func (v *Validations) current(s subject) (validation, bool) {
	if v == nil {
		return validation{}, false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	rec, ok := v.records[s.key]
	return rec, ok && rec.subject == s
}

// validate asks Konnect whether the token of s is valid, token being the
// token s hashes, and records the answer. Concurrent validations of the
// same configuration, server and token share one request. A token Konnect
// rejects (or that cannot be sent) replaces any proof of the configuration
// with its rejection, so that nothing uses it; a failure to ask leaves the
// records alone.
func (v *Validations) validate(ctx context.Context, s subject, token string) (validation, error) {
	if v == nil || v.Konnect == nil {
		return validation{}, errors.New("no validation of tokens is configured")
	}
	v.mu.Lock()
	if v.inFlight == nil {
		v.inFlight = map[validationKey]*validationCall{}
	}
	call, joined := v.inFlight[s.validationKey()]
	if !joined {
		call = &validationCall{done: make(chan struct{})}
		v.inFlight[s.validationKey()] = call
	}
	v.mu.Unlock()
	if joined {
		select {
		case <-call.done:
			if call.err == nil && call.result.subject != s {
				// Another generation with the same token and server: the
				// same fact, recorded for this one too.
				return v.record(s, call.result.orgID), nil
			}
			return call.result, call.err
		case <-ctx.Done():
			return validation{}, ctx.Err()
		}
	}
	org, err := v.Konnect.Organization(ctx, s.serverURL, token)
	if err == nil {
		call.result = v.record(s, org.ID)
	} else {
		call.err = err
		if konnect.IsAuth(err) || konnect.IsInvalidInput(err) {
			v.store(validation{subject: s, at: v.now(), rejection: err})
		}
	}
	v.mu.Lock()
	delete(v.inFlight, s.validationKey())
	v.mu.Unlock()
	close(call.done)
	return call.result, call.err
}

// record makes a validation of s for organisation orgID the record of its
// configuration.
func (v *Validations) record(s subject, orgID string) validation {
	rec := validation{subject: s, orgID: orgID, at: v.now()}
	v.store(rec)
	return rec
}

func (v *Validations) store(rec validation) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.records == nil {
		v.records = map[cache.ObjectName]validation{}
	}
	v.records[rec.key] = rec
}

// forget drops the record of a configuration: its token is no longer
// proven valid (rejected, refused, or the configuration is gone).
func (v *Validations) forget(key cache.ObjectName) {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.records, key)
}

// inUse reports whether a configuration other than those in except holds
// a record of the token with this hash on this server: its clients stay.
func (v *Validations) inUse(serverURL string, tokenHash [sha256.Size]byte, except map[cache.ObjectName]bool) bool {
	if v == nil {
		return false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for key, rec := range v.records {
		if !except[key] && rec.rejection == nil && rec.serverURL == serverURL && rec.tokenHash == tokenHash {
			return true
		}
	}
	return false
}
