package v1alpha1

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Shards split an installation's objects between operator processes, as
// Flux splits its objects with sharding.fluxcd.io/key: each process
// (--shard NAME) watches and reconciles only the objects labelled with its
// shard, holds a Lease of its own, and the default process (no --shard)
// takes the objects without the label. An object and every object it
// refers to, or that refers to it, share a shard: a control plane's whole
// tree, its auth configuration included. Secrets and KongReferenceGrants
// belong to no shard: every process reads them.
const (
	// LabelShard names the shard an object belongs to; objects without it
	// belong to the default shard.
	LabelShard = "konnect.konghq.com/shard"
	// ReasonRefInOtherShard: a referenced object exists, but in another
	// shard than the referrer, so this operator does not see it.
	ReasonRefInOtherShard = "RefInOtherShard"
)

// maxShardName keeps names built from a shard's name within Kubernetes'
// limits: the chart's Deployments and Services, the Lease, the RoleBinding
// finalizer of a namespaced install.
const maxShardName = 30

// ValidShardName checks a shard's name: a DNS label (lower-case letters,
// digits and '-') of at most 30 characters, so that it is also a label
// value and fits in the names made from it.
func ValidShardName(name string) error {
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		return fmt.Errorf("shard name %q: %s", name, errs[0])
	}
	if len(name) > maxShardName {
		return fmt.Errorf("shard name %q: at most %d characters", name, maxShardName)
	}
	return nil
}

// ShardSelector is the label selector of a shard's objects: those labelled
// with its name, or for the default shard ("") those without the label.
func ShardSelector(shard string) string {
	if shard == "" {
		return "!" + LabelShard
	}
	return LabelShard + "=" + shard
}

// ShardOf returns the shard an object's labels put it in ("" for the
// default shard).
func ShardOf(labels map[string]string) string { return labels[LabelShard] }

// DescribeShard names a shard in messages.
func DescribeShard(shard string) string {
	if shard == "" {
		return "the default shard (objects without the label " + LabelShard + ")"
	}
	return fmt.Sprintf("shard %s (label %s=%s)", shard, LabelShard, shard)
}

// ShardFinalizer is the name of a finalizer that each shard puts on an
// object that belongs to no shard (a namespace's RoleBinding), so that
// every shard holds it for itself: the base name for the default shard, and
// "<base>-<shard>" for the others.
func ShardFinalizer(base, shard string) string {
	if shard == "" {
		return base
	}
	return base + "-" + shard
}
