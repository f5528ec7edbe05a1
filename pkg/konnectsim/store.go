package konnectsim

import (
	"crypto/sha1" //nolint:gosec // a name-derived UUID (RFC 4122 version 5) is SHA-1 by definition.
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"
)

// store is the simulator's whole state: organisations, their control planes
// and each control plane's entities. One lock guards it; every request holds
// it for microseconds, so it is not the bottleneck.
type store struct {
	mu   sync.RWMutex
	orgs map[string]*organization // by id
	// orgRefs maps every name an organisation is known by (its id and the
	// value given in Options.Tokens) to its id.
	orgRefs map[string]string
	// seq orders control planes by creation.
	seq uint64
}

type organization struct {
	id, name  string
	createdAt time.Time
	cps       map[string]*controlPlane
	cpNames   map[string]string // name -> id
	// cloud holds the Dedicated Cloud Gateway entities, made on first use
	// (see Server.cloud).
	cloud *cloudState
	// newer holds the entities of Konnect's newer APIs (portals, config
	// stores), made on first use (see organization.api).
	newer *apiState
}

type controlPlane struct {
	obj         entity // the wire object; replaced, never mutated
	seq         uint64
	collections map[string]*collection
	// members of a control-plane group, in the order they were set.
	members []string
	// consumerGroups maps a consumer group id to its member consumer ids.
	consumerGroups map[string]map[string]struct{}
	dpCerts        map[string]entity
	dpCertOrder    []string
}

func newStore() *store {
	return &store{orgs: map[string]*organization{}, orgRefs: map[string]string{}}
}

// orgNamespace makes organisation ids derived from names stable across runs.
var orgNamespace = uuid.MustParse("3c1b6f7e-9a52-4a47-8d8e-6a1f0f2f4b10")

// addOrg registers an organisation by the reference a token maps to: a UUID
// is used as the id, anything else as a name from which an id is derived.
func (s *store) addOrg(ref string, now time.Time) *organization {
	if id, ok := s.orgRefs[ref]; ok {
		return s.orgs[id]
	}
	id, name := ref, ref
	if _, err := uuid.Parse(ref); err != nil {
		id = uuid.NewHash(sha1.New(), orgNamespace, []byte(ref), 5).String()
	} else {
		name = "org-" + ref[:8]
	}
	o := &organization{id: id, name: name, createdAt: now, cps: map[string]*controlPlane{}, cpNames: map[string]string{}}
	s.orgs[id] = o
	s.orgRefs[ref] = id
	s.orgRefs[id] = id
	return o
}

// org finds an organisation by id or by the reference given in Options.Tokens.
func (s *store) org(ref string) *organization {
	return s.orgs[s.orgRefs[ref]]
}

// newControlPlane makes a control plane with every collection in place, so
// that readers under the read lock never need to create one.
func newControlPlane(obj entity, seq uint64) *controlPlane {
	cp := &controlPlane{
		obj: obj, seq: seq, collections: make(map[string]*collection, len(kinds)),
		consumerGroups: map[string]map[string]struct{}{}, dpCerts: map[string]entity{},
	}
	for name, k := range kinds {
		cp.collections[name] = newCollection(k)
	}
	return cp
}

// coll returns one of the control plane's collections; name must be a
// canonical collection name.
func (cp *controlPlane) coll(name string) *collection {
	c := cp.collections[name]
	if c == nil {
		panic("konnectsim: unknown collection " + name)
	}
	return c
}

func (cp *controlPlane) id() string { return cp.obj["id"].(string) }

func (cp *controlPlane) clusterType() string {
	cfg, _ := cp.obj["config"].(map[string]any)
	return str(cfg["cluster_type"])
}

// entityCount counts the control plane's core entities and DP certificates.
func (cp *controlPlane) entityCount() int {
	n := len(cp.dpCerts)
	for _, c := range cp.collections {
		n += len(c.byID)
	}
	return n
}

// sortedCPs returns an organisation's control planes in creation order.
func (o *organization) sortedCPs() []*controlPlane {
	out := make([]*controlPlane, 0, len(o.cps))
	for _, cp := range o.cps {
		out = append(out, cp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// deletePlan collects what deleting an entity would remove (the entity and
// its cascading children), or the first restricting child that forbids it.
type deletePlan struct {
	remove []planItem
	seen   map[planItem]bool
}

type planItem struct{ collection, id string }

// refusal explains why a parent cannot be deleted.
type refusal struct {
	childCollection, parentCollection string
	// text replaces the generic message when Kong words it its own way.
	text string
}

func (r refusal) message() string {
	if r.text != "" {
		return r.text
	}
	return fmt.Sprintf("an existing '%s' entity references this '%s' entity", r.childCollection, r.parentCollection)
}

func (cp *controlPlane) planDelete(plan *deletePlan, collectionName, id string) *refusal {
	item := planItem{collectionName, id}
	if plan.seen[item] {
		return nil
	}
	plan.seen[item] = true
	plan.remove = append(plan.remove, item)
	if collectionName == "ca_certificates" {
		// Services list the CA certificates they trust by ID, not through a
		// foreign key, and Kong checks them itself.
		if svc := cp.serviceTrusting(id); svc != "" {
			return &refusal{childCollection: "services", parentCollection: collectionName,
				text: fmt.Sprintf("ca certificate %s is still referenced by services (id = %s)", id, svc)}
		}
	}
	for _, ref := range referencingKinds(collectionName) {
		child := cp.collections[ref.kind.collection]
		if child == nil {
			continue
		}
		ids := child.children(ref.fk.field, id)
		if len(ids) == 0 {
			continue
		}
		if ref.fk.onDelete == restrict {
			return &refusal{childCollection: ref.kind.collection, parentCollection: collectionName}
		}
		for _, childID := range ids {
			if r := cp.planDelete(plan, ref.kind.collection, childID); r != nil {
				return r
			}
		}
	}
	return nil
}

// serviceTrusting returns the ID of a service that trusts CA certificate
// id, "" when none does.
func (cp *controlPlane) serviceTrusting(id string) string {
	services := cp.collections["services"]
	if services == nil {
		return ""
	}
	for _, svcID := range services.ids {
		if slices.Contains(stringsOf(services.byID[svcID]["ca_certificates"]), id) {
			return svcID
		}
	}
	return ""
}

// deleteEntity removes an entity and whatever cascades with it, or returns
// a refusal when children still reference it. An absent entity is no error.
func (cp *controlPlane) deleteEntity(collectionName, id string) *refusal {
	c := cp.collections[collectionName]
	if c == nil {
		return nil
	}
	if _, ok := c.get(id); !ok {
		return nil
	}
	plan := &deletePlan{seen: map[planItem]bool{}}
	if r := cp.planDelete(plan, collectionName, id); r != nil {
		return r
	}
	for _, item := range plan.remove {
		cp.collections[item.collection].remove(item.id)
		switch item.collection {
		case "consumer_groups":
			delete(cp.consumerGroups, item.id)
		case "consumers":
			for _, members := range cp.consumerGroups {
				delete(members, item.id)
			}
		}
	}
	return nil
}

// groupsOfConsumer returns the sorted ids of the consumer groups a consumer belongs to.
func (cp *controlPlane) groupsOfConsumer(consumerID string) []string {
	var out []string
	for groupID, members := range cp.consumerGroups {
		if _, ok := members[consumerID]; ok {
			out = append(out, groupID)
		}
	}
	slices.Sort(out)
	return out
}

// cloneEntity deep-copies a stored entity so callers can change it freely.
func cloneEntity(e entity) entity {
	if e == nil {
		return nil
	}
	return cloneValue(e).(map[string]any)
}

func cloneValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, item := range t {
			out[k] = cloneValue(item)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, item := range t {
			out[i] = cloneValue(item)
		}
		return out
	case int:
		return float64(t)
	}
	return v
}

func toJSONString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
