package konnectsim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Violation is a request or response that does not conform to the OpenAPI
// document.
type Violation struct {
	Method, Path string
	Operation    string // "METHOD /template"
	Response     bool   // false: the request was invalid
	Status       int    // the response status, for response violations
	Err          error
}

func (v *Violation) Error() string {
	what := "request"
	if v.Response {
		what = fmt.Sprintf("response %d", v.Status)
	}
	return fmt.Sprintf("%s %s: %s does not conform to the OpenAPI document: %v", v.Method, v.Path, what, v.Err)
}

func (v *Violation) Unwrap() error { return v.Err }

// validator checks traffic against the document with kin-openapi.
type validator struct {
	path   string
	router routers.Router
}

// validators caches validators by document and served operations. Loading
// and routing Konnect's document (2.8 MB of YAML) costs about 0.2 s of CPU
// and 40 MB of allocations, and a test process starts a simulator per test;
// once built, a validator is only read (each simulator already validates
// its concurrent requests with one), so simulators share it.
var validators sync.Map // string -> *sharedValidator

type sharedValidator struct {
	once sync.Once
	v    *validator
	err  error
}

func newValidator(path string, served map[string]bool) (*validator, error) {
	key := path + "\x00" + strings.Join(slices.Sorted(maps.Keys(served)), "\x00")
	entry, _ := validators.LoadOrStore(key, &sharedValidator{})
	shared := entry.(*sharedValidator)
	shared.once.Do(func() { shared.v, shared.err = buildValidator(path, served) })
	return shared.v, shared.err
}

func buildValidator(path string, served map[string]bool) (*validator, error) {
	doc, err := loadDocument(path, served)
	if err != nil {
		return nil, err
	}
	// Match loopback requests by path alone.
	doc.Servers = nil
	for _, item := range doc.Paths.Map() {
		item.Servers = nil
		for _, op := range item.Operations() {
			op.Servers = nil
		}
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("konnectsim: routing %s: %w", path, err)
	}
	return &validator{path: path, router: router}, nil
}

var filterOptions = &openapi3filter.Options{
	MultiError:          true,
	SkipSettingDefaults: true,
	// The simulator authenticates itself; the document's bearer schemes only
	// need to be satisfied.
	AuthenticationFunc:    func(context.Context, *openapi3filter.AuthenticationInput) error { return nil },
	IncludeResponseStatus: true,
	// Violations name the failing field and reason; dumping the whole
	// schema and value into every message makes them unreadable.
	SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.SetSchemaErrorMessageCustomizer(shortSchemaError)},
}

// shortSchemaError renders a schema error as its location and reason,
// without kin-openapi's dump of the schema and value.
func shortSchemaError(err *openapi3.SchemaError) string {
	if err.Origin != nil {
		return "" // the default prints the location and the origin only
	}
	msg := err.Reason
	if msg == "" {
		msg = "doesn't match schema " + strconv.Quote(err.SchemaField)
	}
	if p := err.JSONPointer(); len(p) > 0 {
		return `Error at "/` + strings.Join(p, "/") + `": ` + msg
	}
	return msg
}

// request validates the request; a failure is recorded and returned as
// field errors for the 400 answer.
func (v *validator) request(rc *reqCtx) []fieldError {
	in, err := v.input(rc)
	if err == nil {
		err = openapi3filter.ValidateRequest(rc.r.Context(), in)
	}
	if err == nil {
		return nil
	}
	rc.s.stats.violation(&Violation{Method: rc.r.Method, Path: rc.r.URL.Path, Operation: rc.route.key(), Err: err})
	return schemaFieldErrors(err)
}

// input finds the request's operation in the document (once per request).
func (v *validator) input(rc *reqCtx) (*openapi3filter.RequestValidationInput, error) {
	if rc.validationInput != nil {
		return rc.validationInput, nil
	}
	req := rc.r.Clone(rc.r.Context())
	req.Body = io.NopCloser(bytes.NewReader(rc.body))
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		return nil, fmt.Errorf("operation not in the document: %w", err)
	}
	rc.validationInput = &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: filterOptions}
	return rc.validationInput, nil
}

// response validates what the handler wrote, unless it is a status Konnect
// really returns but the document does not declare.
func (v *validator) response(rc *reqCtx) {
	in, err := v.input(rc)
	if err == nil {
		if in.Route.Operation.Responses.Status(rc.status) == nil && undeclaredAllowed(rc.route.family, rc.status) {
			return
		}
		err = openapi3filter.ValidateResponse(rc.r.Context(), &openapi3filter.ResponseValidationInput{
			RequestValidationInput: in, Status: rc.status, Header: rc.header,
			Body: io.NopCloser(bytes.NewReader(rc.out.Bytes())), Options: filterOptions,
		})
	}
	if err != nil {
		rc.s.stats.violation(&Violation{
			Method: rc.r.Method, Path: rc.r.URL.Path, Operation: rc.route.key(), Response: true, Status: rc.status, Err: err,
		})
	}
}

// undeclaredAllowed lists the statuses Konnect returns without declaring
// them: rate limiting everywhere, Kong-admin errors on core entities
// (validation, uniqueness as 400, not found, unauthorised on nested paths),
// a missing entity or parent and a uniqueness clash on the newer APIs, and
// gateway failures.
func undeclaredAllowed(f family, status int) bool {
	switch {
	case status == http.StatusTooManyRequests, status >= 500:
		return true
	case f == famCore:
		return slices.Contains([]int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotFound, http.StatusConflict}, status)
	case f == famProblem:
		// A rename onto a taken name is 409 on PATCH too.
		return status == http.StatusConflict
	case f == famNewer:
		return status == http.StatusNotFound || status == http.StatusConflict
	}
	return false
}

// propertyReason finds the property a required/additionalProperties error is about.
var propertyReason = regexp.MustCompile(`property "([^"]+)" is (missing|unsupported)`)

// schemaFieldErrors turns kin-openapi errors into Kong-style field errors.
func schemaFieldErrors(err error) []fieldError {
	var multi openapi3.MultiError
	if errors.As(err, &multi) {
		var out []fieldError
		for _, e := range multi {
			out = append(out, schemaFieldErrors(e)...)
		}
		return out
	}
	var schemaErr *openapi3.SchemaError
	if errors.As(err, &schemaErr) {
		if inner := schemaErr.Origin; inner != nil {
			var nested openapi3.MultiError
			if errors.As(inner, &nested) {
				return schemaFieldErrors(nested)
			}
		}
		path := schemaErr.JSONPointer()
		rule := "invalid"
		if m := propertyReason.FindStringSubmatch(schemaErr.Reason); m != nil {
			if len(path) == 0 || path[len(path)-1] != m[1] {
				path = append(path, m[1])
			}
			rule = map[string]string{"missing": "required", "unsupported": "unknown_property"}[m[2]]
		}
		return []fieldError{{field: strings.Join(path, "."), rule: rule, messages: []string{schemaErr.Reason}}}
	}
	var reqErr *openapi3filter.RequestError
	if errors.As(err, &reqErr) {
		if reqErr.Parameter != nil {
			return []fieldError{{field: reqErr.Parameter.Name, messages: []string{reqErr.Error()}}}
		}
		if reqErr.Err != nil {
			return schemaFieldErrors(reqErr.Err)
		}
		return []fieldError{{messages: []string{reqErr.Reason}}}
	}
	return []fieldError{{messages: []string{err.Error()}}}
}
