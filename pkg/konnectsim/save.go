package konnectsim

import (
	"math"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// saveRequest describes a create (POST) or upsert (PUT) of a core entity,
// flat or nested under a parent.
type saveRequest struct {
	collection string
	upsert     bool
	key        string // PUT path segment: an id or an endpoint key
	// Nested writes take their parent from the path.
	parentCollection, parentParam, parentField string
}

// save validates and stores one core entity and answers 201 (create) or
// 200 (upsert).
func (s *Server) save(rc *reqCtx, req saveRequest) {
	body, ok := rc.decodeBody()
	if !ok {
		return
	}
	k := kinds[req.collection]
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	cp, ok := rc.controlPlane()
	if !ok || !rc.writable(cp) {
		return
	}
	c := cp.coll(req.collection)
	if req.parentField != "" {
		parentID, ok := rc.parent(cp, req.parentCollection, req.parentParam)
		if !ok {
			return
		}
		body[req.parentField] = map[string]any{"id": parentID}
	}
	delete(body, "created_at")
	delete(body, "updated_at")

	var existing entity
	var id string
	switch {
	case req.upsert:
		if req.parentField != "" {
			existing, _ = lookupChild(c, req.parentField, refID(body, req.parentField), req.key)
		} else {
			existing, _ = c.lookup(req.key)
		}
		named := !isUUID(req.key) && len(k.endpointKeys) > 0
		if named {
			// PUT /{kind}/{name} names the entity, whatever the body says.
			body[k.endpointKeys[0]] = req.key
		}
		switch {
		case existing != nil:
			id = existing["id"].(string)
		case isUUID(req.key):
			id = req.key
		case named:
			id = uuid.NewString()
		default:
			rc.validationFailed([]fieldError{errField("id", "'%s' is not a valid uuid", req.key)})
			return
		}
	default:
		if given, ok := body["id"].(string); ok && given != "" {
			if !isUUID(given) {
				rc.validationFailed([]fieldError{errField("id", "'%s' is not a valid uuid", given)})
				return
			}
			if _, taken := c.byID[given]; taken {
				rc.uniqueViolation([]string{"id"}, given)
				return
			}
			id = given
		} else {
			id = uuid.NewString()
		}
	}
	body["id"] = id

	if errs := checkFields(k, body); len(errs) > 0 {
		rc.validationFailed(errs)
		return
	}
	applyDefaults(body, k.defaults)
	for _, fk := range k.foreign {
		if fk.required && refID(body, fk.field) == "" {
			rc.validationFailed([]fieldError{errField(fk.field, "required field missing")})
			return
		}
	}
	if k.prepare != nil {
		if errs := k.prepare(body); len(errs) > 0 {
			rc.validationFailed(errs)
			return
		}
	}
	for _, f := range k.writeOnly {
		delete(body, f)
	}
	if k.collection == "certificates" {
		delete(body, "snis") // computed from the SNI entities on every read
	}
	if !rc.referencesExist(cp, k, body) {
		return
	}
	if fields, value, clash := c.conflict(body, id); clash {
		rc.uniqueViolation(fields, value)
		return
	}

	now := s.clock.Now()
	created := timestamp(now, k.floatTimes)
	if existing != nil {
		created = existing["created_at"]
	}
	body["created_at"] = created
	if k.hasUpdatedAt {
		body["updated_at"] = timestamp(now, k.floatTimes)
	}
	c.put(body)
	status := http.StatusCreated
	if req.upsert {
		status = http.StatusOK
	}
	rc.writeJSON(status, contentJSON, render(cp, req.collection, body))
}

// referencesExist checks that every entity the body points at exists in the
// control plane; it answers the failure itself.
func (rc *reqCtx) referencesExist(cp *controlPlane, k *kind, body entity) bool {
	for _, fk := range k.foreign {
		id := refID(body, fk.field)
		if id == "" {
			continue
		}
		if _, ok := cp.coll(fk.collection).get(id); !ok {
			rc.referenceMissing(fk.field+".id", id)
			return false
		}
	}
	if k.collection == "services" {
		for _, id := range stringsOf(body["ca_certificates"]) {
			if _, ok := cp.coll("ca_certificates").get(id); !ok {
				rc.referenceMissing("ca_certificates", id)
				return false
			}
		}
	}
	return true
}

// timestamp renders a core-entity time: Unix seconds, with milliseconds for
// kinds that carry them as numbers.
func timestamp(t time.Time, withMillis bool) any {
	if withMillis {
		return math.Round(float64(t.UnixMilli())) / 1000
	}
	return float64(t.Unix())
}

// applyDefaults fills unset fields from defaults, recursing into objects so
// that a partly given object (an upstream's healthchecks) is completed.
func applyDefaults(body map[string]any, defaults map[string]any) {
	for k, def := range defaults {
		cur, set := body[k]
		if !set || cur == nil {
			body[k] = cloneValue(def)
			continue
		}
		defObj, defIsObj := def.(map[string]any)
		curObj, curIsObj := cur.(map[string]any)
		if defIsObj && curIsObj && len(defObj) > 0 {
			applyDefaults(curObj, defObj)
		}
	}
}
