package konnectsim

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

const (
	clusterTypeGroup   = "CLUSTER_TYPE_CONTROL_PLANE_GROUP"
	defaultClusterType = "CLUSTER_TYPE_CONTROL_PLANE"
	// Control-plane lists page by number.
	defaultCPPageSize = 10
	maxCPPageSize     = 100
)

var (
	clusterTypes = []string{
		"CLUSTER_TYPE_CONTROL_PLANE", "CLUSTER_TYPE_K8S_INGRESS_CONTROLLER", clusterTypeGroup,
		"CLUSTER_TYPE_SERVERLESS", "CLUSTER_TYPE_KAFKA_NATIVE_EVENT_PROXY", "CLUSTER_TYPE_SERVERLESS_V1",
	}
	authTypes    = []string{"pinned_client_certs", "pki_client_certs"}
	labelPattern = regexp.MustCompile(`^[a-z0-9A-Z]{1}([a-z0-9A-Z-._]*[a-z0-9A-Z]+)?$`)
	// Konnect reserves these label-key prefixes for itself.
	reservedLabelPrefixes = []string{"kong", "konnect", "mesh", "kic", "insomnia", "_"}
)

// cpTime renders a control-plane timestamp (RFC 3339 with milliseconds).
func cpTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// checkControlPlaneBody validates a create (create=true) or update body.
func checkControlPlaneBody(body map[string]any, create bool) []invalidParam {
	allowed := map[string]bool{"name": true, "description": true, "auth_type": true, "proxy_urls": true, "labels": true}
	if create {
		allowed["cluster_type"], allowed["cloud_gateway"] = true, true
	}
	var out []invalidParam
	for _, f := range sortedKeys(body) {
		if !allowed[f] {
			out = append(out, invalidParam{Field: f, Rule: "unknown_property", Reason: "is not a known property"})
		}
	}
	name, hasName := body["name"]
	switch s, isString := name.(string); {
	case create && !hasName:
		out = append(out, invalidParam{Field: "name", Rule: "required", Reason: "is a required field"})
	case hasName && !isString:
		out = append(out, invalidParam{Field: "name", Rule: "is_string", Reason: "must be a string"})
	case hasName && (len(s) < 2 || len(s) > 256):
		out = append(out, invalidParam{Field: "name", Rule: "invalid", Reason: "must be between 2 and 256 characters long"})
	}
	if d, ok := body["description"]; ok {
		if s, isString := d.(string); !isString || len(s) > 2048 {
			out = append(out, invalidParam{Field: "description", Rule: "invalid", Reason: "must be a string of at most 2048 characters"})
		}
	}
	for field, values := range map[string][]string{"cluster_type": clusterTypes, "auth_type": authTypes} {
		if v, ok := body[field]; ok {
			if s, _ := v.(string); !slices.Contains(values, s) {
				out = append(out, invalidParam{Field: field, Rule: "invalid", Reason: "must be one of " + strings.Join(values, ", ")})
			}
		}
	}
	if v, ok := body["cloud_gateway"]; ok {
		if _, isBool := v.(bool); !isBool {
			out = append(out, invalidParam{Field: "cloud_gateway", Rule: "is_boolean", Reason: "must be a boolean"})
		}
	}
	out = append(out, checkLabels(body["labels"])...)
	out = append(out, checkProxyURLs(body["proxy_urls"])...)
	return out
}

func checkLabels(v any) []invalidParam {
	if v == nil {
		return nil
	}
	labels, ok := v.(map[string]any)
	if !ok || len(labels) > 50 {
		return []invalidParam{{Field: "labels", Rule: "is_label", Reason: "must be an object of at most 50 labels"}}
	}
	var out []invalidParam
	for _, key := range sortedKeys(labels) {
		value, _ := labels[key].(string)
		switch {
		case len(key) > 63 || !labelPattern.MatchString(key):
			out = append(out, invalidParam{Field: "labels." + key, Rule: "is_label", Reason: "label key is not valid"})
		case slices.ContainsFunc(reservedLabelPrefixes, func(p string) bool { return strings.HasPrefix(strings.ToLower(key), p) }):
			out = append(out, invalidParam{Field: "labels." + key, Rule: "is_label", Reason: "label key must not start with a reserved prefix (kong, konnect, mesh, kic, insomnia, _)"})
		case len(value) > 63 || !labelPattern.MatchString(value):
			out = append(out, invalidParam{Field: "labels." + key, Rule: "is_label", Reason: "label value is not valid"})
		}
	}
	return out
}

func checkProxyURLs(v any) []invalidParam {
	if v == nil {
		return nil
	}
	urls, ok := v.([]any)
	if !ok || len(urls) > 5 {
		return []invalidParam{{Field: "proxy_urls", Rule: "is_array", Reason: "must be an array of at most 5 proxy URLs"}}
	}
	for i, item := range urls {
		u, _ := item.(map[string]any)
		host, _ := u["host"].(string)
		protocol, _ := u["protocol"].(string)
		port, _ := u["port"].(float64)
		if host == "" || protocol == "" || port < 1 || len(u) != 3 {
			return []invalidParam{{Field: fmt.Sprintf("proxy_urls[%d]", i), Rule: "invalid", Reason: "must have exactly host, port and protocol"}}
		}
	}
	return nil
}

func (s *Server) createControlPlane(rc *reqCtx) {
	body, ok := rc.decodeBody()
	if !ok {
		return
	}
	if params := checkControlPlaneBody(body, true); len(params) > 0 {
		rc.problem(http.StatusBadRequest, "Some of the fields provided were invalid", params...)
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	o := rc.org
	name := body["name"].(string)
	if _, taken := o.cpNames[name]; taken {
		rc.problem(http.StatusConflict, fmt.Sprintf("Key (org_id, name)=(%s, %s) already exists.", o.id, name))
		return
	}
	id := uuid.NewString()
	now := cpTime(s.clock.Now())
	clusterType := orDefault(body["cluster_type"], defaultClusterType)
	host := strings.ReplaceAll(id, "-", "")[:10]
	obj := entity{
		"id": id, "name": name, "description": orDefault(body["description"], ""),
		"labels": orDefaultValue(body["labels"], map[string]any{}),
		"config": map[string]any{
			"control_plane_endpoint": "https://" + host + ".us.cp0.konghq.com",
			"telemetry_endpoint":     "https://" + host + ".us.tp0.konghq.com",
			"cluster_type":           clusterType,
			"auth_type":              orDefault(body["auth_type"], "pinned_client_certs"),
			"cloud_gateway":          body["cloud_gateway"] == true,
			"proxy_urls":             orDefaultValue(body["proxy_urls"], []any{}),
		},
		"created_at": now, "updated_at": now,
	}
	s.store.seq++
	o.cps[id] = newControlPlane(obj, s.store.seq)
	o.cpNames[name] = id
	rc.writeJSON(http.StatusCreated, contentJSON, cloneEntity(obj))
}

func orDefault(v any, def string) string {
	if s, ok := v.(string); ok {
		return s
	}
	return def
}

func orDefaultValue(v, def any) any {
	if v == nil {
		return def
	}
	return cloneValue(v)
}

// problemControlPlane resolves the path's control plane for the
// control-plane APIs; it answers 404 (or 400 for a malformed id) itself.
func (rc *reqCtx) problemControlPlane() (*controlPlane, bool) {
	id := rc.r.PathValue("controlPlaneId")
	if !isUUID(id) {
		rc.problem(http.StatusBadRequest, "Invalid control plane id",
			invalidParam{Field: "controlPlaneId", Rule: "is_uuid", Reason: "must be a valid UUID", Source: "path"})
		return nil, false
	}
	cp := rc.org.cps[id]
	if cp == nil {
		rc.problem(http.StatusNotFound, "ControlPlane "+id+" not found")
		return nil, false
	}
	return cp, true
}

func (s *Server) getControlPlane(rc *reqCtx) {
	s.store.mu.RLock()
	defer s.store.mu.RUnlock()
	if cp, ok := rc.problemControlPlane(); ok {
		rc.writeJSON(http.StatusOK, contentJSON, cloneEntity(cp.obj))
	}
}

func (s *Server) updateControlPlane(rc *reqCtx) {
	body, ok := rc.decodeBody()
	if !ok {
		return
	}
	if params := checkControlPlaneBody(body, false); len(params) > 0 {
		rc.problem(http.StatusBadRequest, "Some of the fields provided were invalid", params...)
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	cp, ok := rc.problemControlPlane()
	if !ok {
		return
	}
	o := rc.org
	obj := cloneEntity(cp.obj)
	if name, ok := body["name"].(string); ok && name != obj["name"] {
		if _, taken := o.cpNames[name]; taken {
			rc.problem(http.StatusConflict, fmt.Sprintf("Key (org_id, name)=(%s, %s) already exists.", o.id, name))
			return
		}
		delete(o.cpNames, obj["name"].(string))
		o.cpNames[name] = cp.id()
		obj["name"] = name
	}
	for _, f := range []string{"description", "labels"} {
		if v, ok := body[f]; ok {
			obj[f] = cloneValue(v)
		}
	}
	cfg := obj["config"].(map[string]any)
	for _, f := range []string{"auth_type", "proxy_urls"} {
		if v, ok := body[f]; ok {
			cfg[f] = cloneValue(v)
		}
	}
	obj["updated_at"] = cpTime(s.clock.Now())
	cp.obj = obj
	rc.writeJSON(http.StatusOK, contentJSON, cloneEntity(obj))
}

// deleteControlPlane removes a control plane with everything in it, and
// takes it out of any group it belonged to.
func (s *Server) deleteControlPlane(rc *reqCtx) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	cp, ok := rc.problemControlPlane()
	if !ok {
		return
	}
	o := rc.org
	delete(o.cps, cp.id())
	delete(o.cpNames, cp.obj["name"].(string))
	for _, other := range o.cps {
		other.members = slices.DeleteFunc(other.members, func(m string) bool { return m == cp.id() })
	}
	// Its config stores and cloud-gateway configuration go with it.
	o.api().parentGone(parentControlPlane, cp.id())
	s.cloud(o).controlPlaneDeleted(cp.id(), s.clock.Now(), s.opts.CloudGateways.TerminationTime)
	rc.noContent()
}

// cpFilter is the parsed filter of a control-plane list.
type cpFilter struct {
	idEq, idOeq                   []string
	nameEq, nameNeq, nameContains *string
	typeEq, typeNeq, typeOeq      []string
	cloudGateway                  *bool
	labels                        []string // "key:value" or "key" (must exist)
}

func (f cpFilter) matches(cp *controlPlane) bool {
	name := cp.obj["name"].(string)
	cfg := cp.obj["config"].(map[string]any)
	labels, _ := cp.obj["labels"].(map[string]any)
	switch {
	case f.idEq != nil && !slices.Contains(f.idEq, cp.id()),
		f.idOeq != nil && !slices.Contains(f.idOeq, cp.id()),
		f.nameEq != nil && name != *f.nameEq,
		f.nameNeq != nil && name == *f.nameNeq,
		f.nameContains != nil && !strings.Contains(name, *f.nameContains),
		f.typeEq != nil && !slices.Contains(f.typeEq, cp.clusterType()),
		f.typeOeq != nil && !slices.Contains(f.typeOeq, cp.clusterType()),
		f.typeNeq != nil && slices.Contains(f.typeNeq, cp.clusterType()),
		f.cloudGateway != nil && cfg["cloud_gateway"] != *f.cloudGateway:
		return false
	}
	for _, l := range f.labels {
		key, value, hasValue := strings.Cut(l, ":")
		got, present := labels[strings.TrimSpace(key)]
		if !present || (hasValue && got != strings.TrimSpace(value)) {
			return false
		}
	}
	return true
}

// parseCPFilter reads filter[…][…], labels and paging of a control-plane list.
func (rc *reqCtx) parseCPFilter() (f cpFilter, number, size int, ok bool) {
	q := rc.r.URL.Query()
	number, size = 1, defaultCPPageSize
	bad := func(field, reason string) (cpFilter, int, int, bool) {
		rc.problem(http.StatusBadRequest, "Invalid query parameters", invalidParam{Field: field, Rule: "invalid", Reason: reason, Source: "query"})
		return f, 0, 0, false
	}
	for key, values := range q {
		v := values[0]
		one := func() *string { return &v }
		list := strings.Split(v, ",")
		switch key {
		case "filter[id][eq]":
			f.idEq = []string{v}
		case "filter[id][oeq]":
			f.idOeq = list
		case "filter[name][eq]":
			f.nameEq = one()
		case "filter[name][neq]":
			f.nameNeq = one()
		case "filter[name][contains]":
			f.nameContains = one()
		case "filter[cluster_type][eq]":
			f.typeEq = []string{v}
		case "filter[cluster_type][neq]":
			f.typeNeq = []string{v}
		case "filter[cluster_type][oeq]":
			f.typeOeq = list
		case "filter[cloud_gateway]":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return bad(key, "must be true or false")
			}
			f.cloudGateway = &b
		case "labels":
			f.labels = list
		case "page[number]", "page[size]":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || (key == "page[size]" && n > maxCPPageSize) {
				return bad(key, "must be a positive integer (page[size] at most 100)")
			}
			if key == "page[number]" {
				number = n
			} else {
				size = n
			}
		case "sort":
		default:
			if strings.HasPrefix(key, "filter") {
				return bad(key, "unknown filter")
			}
		}
	}
	return f, number, size, true
}

func (s *Server) listControlPlanes(rc *reqCtx) {
	f, number, size, ok := rc.parseCPFilter()
	if !ok {
		return
	}
	s.store.mu.RLock()
	defer s.store.mu.RUnlock()
	all := rc.org.sortedCPs()
	if strings.HasPrefix(rc.r.URL.Query().Get("sort"), "-") || strings.HasSuffix(rc.r.URL.Query().Get("sort"), " desc") {
		slices.Reverse(all)
	}
	var matched []any
	for _, cp := range all {
		if f.matches(cp) {
			matched = append(matched, cp)
		}
	}
	data := []any{}
	for i := (number - 1) * size; i < len(matched) && i < number*size; i++ {
		data = append(data, cloneEntity(matched[i].(*controlPlane).obj))
	}
	rc.writeJSON(http.StatusOK, contentJSON, map[string]any{
		"data": data,
		"meta": map[string]any{"page": map[string]any{"number": number, "size": size, "total": len(matched)}},
	})
}

func (s *Server) getOrganizationMe(rc *reqCtx) {
	s.store.mu.RLock()
	defer s.store.mu.RUnlock()
	o := rc.org
	rc.writeJSON(http.StatusOK, contentJSON, map[string]any{
		"id": o.id, "name": o.name, "owner_id": uuid.NewSHA1(o.idUUID(), []byte("owner")).String(),
		"created_at": cpTime(o.createdAt), "updated_at": cpTime(o.createdAt),
		"state": "active", "retention_period_days": 90,
	})
}

func (o *organization) idUUID() uuid.UUID { return uuid.MustParse(o.id) }
