package export

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
)

// maxNameLength keeps names valid DNS-1123 labels, which every kind
// accepts as a name (most take longer subdomains, but labels read better
// and fit wherever a name is reused, as in the generateName of credentials
// made from Secrets).
const maxNameLength = 63

// shortIDLength is how much of an entity's ID distinguishes its name.
const shortIDLength = 8

// namer hands out object names: from the entity's Konnect name when it has
// one, else from its kind and the start of its ID; never the same name
// twice for one kind.
type namer struct {
	used map[string]map[string]bool
}

func newNamer() *namer { return &namer{used: map[string]map[string]bool{}} }

// name returns a free name of kind for the entity with the given ID
// (none for objects that are not entities), preferring the Konnect name
// given, else the fallback (usually the kind's name) followed by the start
// of the ID. A name already taken gets the start of the ID, then the whole
// ID, then a count appended.
func (n *namer) name(kind, preferred, fallback, id string) string {
	if n.used[kind] == nil {
		n.used[kind] = map[string]bool{}
	}
	var candidates []string
	base := sanitize(preferred)
	if base != "" {
		candidates = append(candidates, base)
	} else {
		base = sanitize(fallback)
	}
	if whole := sanitize(id); whole != "" {
		candidates = append(candidates, joinName(base, whole[:min(len(whole), shortIDLength)]), joinName(base, whole))
	} else if len(candidates) == 0 {
		candidates = append(candidates, base)
	}
	for i := 2; ; i++ {
		for _, candidate := range candidates {
			if candidate != "" && !n.used[kind][candidate] {
				n.used[kind][candidate] = true
				return candidate
			}
		}
		// Not met with Konnect's IDs; a last resort for names without one.
		candidates = []string{joinName(base, strconv.Itoa(i))}
	}
}

// take reserves name, exactly, for kind: false when it is taken already.
func (n *namer) take(kind, name string) bool {
	if n.used[kind] == nil {
		n.used[kind] = map[string]bool{}
	}
	if n.used[kind][name] {
		return false
	}
	n.used[kind][name] = true
	return true
}

// joinName is base-suffix, base cut so that the whole fits.
func joinName(base, suffix string) string {
	if base == "" {
		return suffix
	}
	if room := maxNameLength - len(suffix) - 1; len(base) > room {
		base = strings.TrimRight(base[:max(room, 0)], "-")
	}
	if base == "" {
		return suffix
	}
	return base + "-" + suffix
}

// sanitize makes text a DNS-1123 label: lower case letters, digits and
// dashes, starting and ending with a letter or digit, at most 63 long.
func sanitize(text string) string {
	var out strings.Builder
	dash := false
	for _, r := range strings.ToLower(text) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			out.WriteRune(r)
			dash = false
		case !dash && out.Len() > 0:
			out.WriteByte('-')
			dash = true
		}
	}
	name := strings.Trim(out.String(), "-")
	if len(name) > maxNameLength {
		name = strings.TrimRight(name[:maxNameLength], "-")
	}
	return name
}

// kindOrder is the order in which kinds are written: what is referred to
// before what refers to it, so that a reader meets names before their uses
// (the operator itself waits for references in any order).
var kindOrder = []string{
	"KonnectGatewayControlPlane", "Secret", "KongReferenceGrant", "KonnectConfigStore", "KongVault", "KongKeySet", "KongKey",
	"KongCertificate", "KongCACertificate", "KongSNI", "KongUpstream", "KongTarget", "KongService", "KongRoute",
	"KongConsumerGroup", "KongConsumer", "KongCredentialACL", "KongPlugin", "KongPluginBinding", "KongDataPlaneClientCertificate",
	"KonnectEventGateway", "EventGatewayBackendCluster", "EventGatewaySchemaRegistry", "EventGatewayDataPlaneCertificate",
	"EventGatewayListener", "EventGatewayVirtualCluster", "EventGatewayListenerPolicy", "EventGatewayVirtualClusterPolicy",
	"EventGatewayVirtualClusterConsumePolicy", "EventGatewayVirtualClusterProducePolicy",
}

// order ranks an object by its kind.
func order(obj runtime.Object) int {
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	for i, k := range kindOrder {
		if k == kind {
			return i
		}
	}
	return len(kindOrder)
}
