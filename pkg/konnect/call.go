package konnect

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/Kong/sdk-konnect-go/models/sdkerrors"
)

// Operation names one Konnect call, for error messages ("create service")
// and for the metrics' operation and entity labels.
type Operation struct {
	// Verb is what the call does: create, upsert, update, get, list, delete.
	Verb string
	// Entity is the kind of Konnect entity, singular: service, key_set, …
	Entity string
	// Core marks the core-entity API, which answers a clash of unique fields
	// with 400 instead of 409.
	Core bool
}

func (o Operation) internal() operation {
	return operation{verb: o.Verb, entity: o.Entity, core: o.Core}
}

func (o Operation) String() string { return o.internal().String() }

// Call runs one call of Kong's SDK as op. The request is labelled op in the
// metrics, and a failure comes back as one of this package's error classes
// (NotFoundError, ConflictError, RateLimitedError, AuthError,
// InvalidInputError, TransientError, ServerFaultError), with Konnect's
// message and without its trace id, nor the secret values of ctx (see
// WithSecrets).
func Call[R any](ctx context.Context, op Operation, call func(context.Context) (R, error)) (R, error) {
	answer, err := call(withOperation(ctx, op.internal()))
	if err != nil {
		var zero R
		return zero, redactError(ctx, Classify(op, err))
	}
	return answer, nil
}

// Classify turns an error of Kong's SDK into one of this package's error
// classes. Errors that are already classified pass through unchanged.
func Classify(op Operation, err error) error {
	if err == nil {
		return nil
	}
	o := op.internal()
	if fault := serverFault(o, err); fault != nil {
		// Before anything else: the SDK wraps what the body's reading
		// returned, and the limit is not the server's answer.
		return fault
	}
	if isClassified(err) {
		return err
	}
	var sdkErr *sdkerrors.SDKError
	if errors.As(err, &sdkErr) {
		var header http.Header
		if sdkErr.RawResponse != nil {
			header = sdkErr.RawResponse.Header
		}
		return classifyResponse(o, sdkErr.StatusCode, header, []byte(sdkErr.Body))
	}
	if status, ok := problemStatus(err); ok {
		// Konnect-level APIs answer problem+json, which the SDK decodes into
		// typed errors; their JSON is the answer's body again.
		body, _ := json.Marshal(err)
		return classifyResponse(o, status, nil, body)
	}
	return transportError(o, err)
}

// problemStatus is the HTTP status that a typed error of the SDK stands for.
func problemStatus(err error) (int, bool) {
	var (
		badRequest     *sdkerrors.BadRequestError
		legacyBad      *sdkerrors.KonnectCPLegacyBadRequestError
		unauthorized   *sdkerrors.UnauthorizedError
		legacyUnauth   *sdkerrors.KonnectCPLegacyUnauthorizedError
		gatewayUnauth  *sdkerrors.GatewayUnauthorizedError
		forbidden      *sdkerrors.ForbiddenError
		legacyForbid   *sdkerrors.KonnectCPLegacyForbiddenError
		notFound       *sdkerrors.NotFoundError
		legacyNotFound *sdkerrors.KonnectCPLegacyNotFoundError
		conflict       *sdkerrors.ConflictError
		legacyConflict *sdkerrors.KonnectCPLegacyConflictError
		rateLimited    *sdkerrors.RateLimited
		tooMany        *sdkerrors.TooManyRequestsError
		unavailable    *sdkerrors.ServiceUnavailable
		internal       *sdkerrors.InternalServerError
		precondition   *sdkerrors.PreconditionFailed
		unsupported    *sdkerrors.UnsupportedMediaTypeError
		gone           *sdkerrors.GoneError
		slugConflict   *sdkerrors.APISlugConflict
	)
	switch {
	case errors.As(err, &badRequest), errors.As(err, &legacyBad):
		return http.StatusBadRequest, true
	case errors.As(err, &unauthorized), errors.As(err, &legacyUnauth), errors.As(err, &gatewayUnauth):
		return http.StatusUnauthorized, true
	case errors.As(err, &forbidden), errors.As(err, &legacyForbid):
		return http.StatusForbidden, true
	case errors.As(err, &notFound), errors.As(err, &legacyNotFound):
		return http.StatusNotFound, true
	case errors.As(err, &conflict), errors.As(err, &legacyConflict), errors.As(err, &slugConflict):
		return http.StatusConflict, true
	case errors.As(err, &rateLimited), errors.As(err, &tooMany):
		return http.StatusTooManyRequests, true
	case errors.As(err, &unavailable):
		return http.StatusServiceUnavailable, true
	case errors.As(err, &internal):
		return http.StatusInternalServerError, true
	case errors.As(err, &precondition):
		return http.StatusPreconditionFailed, true
	case errors.As(err, &unsupported):
		return http.StatusUnsupportedMediaType, true
	case errors.As(err, &gone):
		return http.StatusGone, true
	}
	// Other problem errors (BaseError answers 5xx on Konnect-level APIs)
	// carry their status in the problem itself.
	var problem struct {
		Status json.Number `json:"status"`
	}
	if raw, jerr := json.Marshal(err); jerr == nil && json.Unmarshal(raw, &problem) == nil {
		if status, perr := problem.Status.Int64(); perr == nil && status >= 400 && status <= 599 {
			return int(status), true
		}
	}
	return 0, false
}

// isClassified reports whether err is one of this package's error classes
// already: a value Classify (or this package) made, not one that merely
// wraps such a value, as the SDK wraps what the HTTP layer returned.
func isClassified(err error) bool {
	switch err.(type) { //nolint:errorlint // the value itself, not what it wraps
	case *NotFoundError, *ConflictError, *RateLimitedError, *AuthError, *InvalidInputError, *TransientError, *ServerFaultError, *HeldError, *WriteRefusedError:
		return true
	}
	return false
}
