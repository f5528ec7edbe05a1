package integration

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

type (
	kongKey    = *configurationv1alpha1.KongKey
	kongKeySet = *configurationv1alpha1.KongKeySet
)

func keySetObject(name string) kongKeySet {
	return &configurationv1alpha1.KongKeySet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.KongKeySetSpec{
			ControlPlaneRef:   cpRef("cp"),
			KongKeySetAPISpec: configurationv1alpha1.KongKeySetAPISpec{Name: name},
		},
	}
}

var keySets = kindCase[kongKeySet]{
	kind: "KongKeySet", collection: "key-sets", path: "core-entities/key-sets",
	client: func(e *env) objectClient[kongKeySet] { return e.cs.ConfigurationV1alpha1().KongKeySets(e.ns) },
	object: func(_ *env, name string) kongKeySet { return keySetObject(name) },
	setControlPlane: func(s kongKeySet, ref *commonv1alpha1.ControlPlaneRef) {
		s.Spec.ControlPlaneRef = ref
	},
	change: func(s kongKeySet) { s.Spec.Name += "-v2" },
	changed: func(ent map[string]any) error {
		if name, _ := ent["name"].(string); !strings.HasSuffix(name, "-v2") {
			return fmt.Errorf("name = %v", ent["name"])
		}
		return nil
	},
	drift: func(e *env, cpID string, ent map[string]any) {
		ent["name"] = "drifted"
		e.reput(cpID, "key-sets", ent)
	},
	adopt: func(s kongKeySet, opts *commonv1alpha1.AdoptOptions) { s.Spec.Adopt = opts },
	seed: func(e *env, cpID, name string, matching bool) string {
		if !matching {
			name += "-other"
		}
		return e.put(cpID, "key-sets", map[string]any{"name": name})
	},
}

// jwks keeps the JWK made for each test key, so that a seeded entity and
// the object that adopts it hold the same one.
var jwks sync.Map // "namespace/name" -> string

func (e *env) jwkFor(name, kid string) string {
	e.t.Helper()
	key := e.ns + "/" + name
	if j, ok := jwks.Load(key); ok {
		return j.(string)
	}
	j, _ := jwks.LoadOrStore(key, newJWK(e.t, kid))
	return j.(string)
}

func keyObject(name, jwk string) kongKey {
	return &configurationv1alpha1.KongKey{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.KongKeySpec{
			ControlPlaneRef: cpRef("cp"),
			KongKeyAPISpec:  configurationv1alpha1.KongKeyAPISpec{KID: name, Name: name, JWK: jwk},
		},
	}
}

var keys = kindCase[kongKey]{
	kind: "KongKey", collection: "keys", path: "core-entities/keys",
	client: func(e *env) objectClient[kongKey] { return e.cs.ConfigurationV1alpha1().KongKeys(e.ns) },
	object: func(e *env, name string) kongKey { return keyObject(name, e.jwkFor(name, name)) },
	setControlPlane: func(k kongKey, ref *commonv1alpha1.ControlPlaneRef) {
		k.Spec.ControlPlaneRef = ref
	},
	change: func(k kongKey) { k.Spec.Name = "renamed-" + k.Spec.Name },
	changed: func(ent map[string]any) error {
		if name, _ := ent["name"].(string); !strings.HasPrefix(name, "renamed-") {
			return fmt.Errorf("name = %v", ent["name"])
		}
		return nil
	},
	drift: func(e *env, cpID string, ent map[string]any) {
		ent["name"] = "drifted"
		e.reput(cpID, "keys", ent)
	},
	adopt: func(k kongKey, opts *commonv1alpha1.AdoptOptions) { k.Spec.Adopt = opts },
	seed: func(e *env, cpID, name string, matching bool) string {
		jwk := e.jwkFor(name, name)
		if !matching {
			jwk = e.jwkFor(name+"-other", name)
		}
		return e.put(cpID, "keys", map[string]any{"kid": name, "name": name, "jwk": jwk})
	},
}

func TestKeySet(t *testing.T) { keySets.test(t) }
func TestKey(t *testing.T)    { keys.test(t) }

func inKeySet(name string) func(kongKey) {
	return func(k kongKey) {
		k.Spec.KeySetRef = &configurationv1alpha1.KeySetRef{
			Type: configurationv1alpha1.KeySetRefNamespacedRef, NamespacedRef: &commonv1alpha1.NameRef{Name: name},
		}
	}
}

func (e *env) createKey(name string, mutate ...func(kongKey)) {
	e.t.Helper()
	k := keys.object(e, name)
	for _, m := range mutate {
		m(k)
	}
	keys.create(e, k)
}

// TestKeyInKeySet: a key joins its KongKeySet's key set (set.id, status
// keySetID) once the set is Programmed; a missing or unprogrammed set is
// reported on KeySetRefValid; removing the reference takes the key out; a
// konnectID reference is accepted and ignored; PEM keys work like JWKs; and
// a set deleted first takes its keys with it in Konnect.
func TestKeyInKeySet(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	keySets.create(e, keySetObject("set"))
	setID := keySets.programmed(e, "set").Status.Konnect.ID
	inSet := func(name, want string) {
		t.Helper()
		k := keys.programmed(e, name)
		if k.Status.Konnect.KeySetID != want {
			t.Fatalf("status keySetID %q, want %q", k.Status.Konnect.KeySetID, want)
		}
		ent, err := keys.entity(e, cpID, k)
		if err != nil {
			t.Fatal(err)
		}
		if got := refID(ent, "set"); got != want {
			t.Fatalf("Konnect key set %q, want %q", got, want)
		}
	}
	keySetRefMessage := func(name string) string {
		c := meta.FindStatusCondition(keys.get(e, name).Status.Conditions, commonv1alpha1.ConditionKeySetRefValid)
		if c == nil || c.Status != metav1.ConditionTrue {
			t.Fatalf("KeySetRefValid = %v, want True", c)
		}
		return c.Message
	}

	t.Run("a Programmed set is joined", func(t *testing.T) {

		defer e.use(t)()
		e.createKey("member", inKeySet("set"))
		inSet("member", setID)
	})
	t.Run("a PEM key pair", func(t *testing.T) {
		defer e.use(t)()
		public, private := newPEMKey(t)
		e.createKey("pem", inKeySet("set"), func(k kongKey) {
			k.Spec.JWK = ""
			k.Spec.PEM = &configurationv1alpha1.PEMKeyPair{PublicKey: public, PrivateKey: private}
		})
		inSet("pem", setID)
		ent, _ := keys.entity(e, cpID, keys.get(e, "pem"))
		if p, _ := ent["pem"].(map[string]any); p["public_key"] != public {
			t.Fatalf("Konnect key pem %v", ent["pem"])
		}
	})
	t.Run("a missing set is waited for", func(t *testing.T) {
		defer e.use(t)()
		e.createKey("early", inKeySet("later"))
		keys.waiting(e, "early", commonv1alpha1.ConditionKeySetRefValid, commonv1alpha1.ReasonInvalid)
		keySets.create(e, keySetObject("later"))
		inSet("early", keySets.programmed(e, "later").Status.Konnect.ID)
	})
	t.Run("an unprogrammed set is waited for", func(t *testing.T) {
		defer e.use(t)()
		idle := keySetObject("idle")
		idle.Spec.ControlPlaneRef = cpRef("nowhere")
		keySets.create(e, idle)
		e.createKey("waiting", inKeySet("idle"))
		keys.waiting(e, "waiting", commonv1alpha1.ConditionKeySetRefValid, commonv1alpha1.ReasonInvalid)
		keySets.update(e, "idle", func(s kongKeySet) { s.Spec.ControlPlaneRef = cpRef("cp") })
		inSet("waiting", keySets.programmed(e, "idle").Status.Konnect.ID)
	})
	t.Run("removing the reference leaves the set", func(t *testing.T) {
		defer e.use(t)()
		keys.update(e, "member", func(k kongKey) { k.Spec.KeySetRef = nil })
		e.eventually("the key left its set", func() error {
			k := keys.get(e, "member")
			ent, err := keys.entity(e, cpID, k)
			if err != nil {
				return err
			}
			if k.Status.Konnect.KeySetID != "" || refID(ent, "set") != "" {
				return fmt.Errorf("status keySetID %q, Konnect set %q", k.Status.Konnect.KeySetID, refID(ent, "set"))
			}
			return nil
		})
		if msg := keySetRefMessage("member"); msg != "KeySetRef is unset" {
			t.Fatalf("KeySetRefValid message %q", msg)
		}
	})
	t.Run("a konnectID reference is ignored", func(t *testing.T) {
		defer e.use(t)()
		e.createKey("raw", func(k kongKey) {
			k.Spec.KeySetRef = &configurationv1alpha1.KeySetRef{Type: configurationv1alpha1.KeySetRefKonnectID, KonnectID: setID}
		})
		inSet("raw", "")
		if msg := keySetRefMessage("raw"); !strings.Contains(msg, "konnectID") {
			t.Fatalf("KeySetRefValid message %q does not say the konnectID is ignored", msg)
		}
	})
	t.Run("a set deleted first takes its keys with it", func(t *testing.T) {
		defer e.use(t)()
		keySets.deleteAndWait(e, "later")
		earlyID := keys.get(e, "early").Status.Konnect.ID
		if _, ok := e.entity(cpID, "keys", earlyID); ok {
			t.Fatal("the set's key is still in Konnect")
		}
		keys.waiting(e, "early", commonv1alpha1.ConditionKeySetRefValid, commonv1alpha1.ReasonInvalid)
		keys.deleteAndWait(e, "early")
	})
}
