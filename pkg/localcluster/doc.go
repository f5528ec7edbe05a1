// Package localcluster runs a real Kubernetes control plane on loopback:
// etcd, kube-apiserver and kube-controller-manager, built from source by
// hack/build-control-plane.sh and started as child processes.
//
// It gives tests (and, through hack/local-cluster.sh, people) the real API
// server: OpenAPI and CEL validation of the CRDs, the status subresource,
// RBAC with real ServiceAccount tokens, namespace deletion and ownerReference
// garbage collection. There are no nodes and no pods.
//
// # Security set-up
//
// The API server serves TLS with a certificate signed by a CA made for each
// cluster, authenticates an admin with a static token (--token-auth-file,
// group system:masters) and ServiceAccounts with tokens signed by a key pair
// made for each cluster, and authorises with RBAC.
//
// # Child processes
//
// Every component runs in its own process group with Pdeathsig set to
// SIGKILL, so it dies with the process that started it, also when a test
// binary times out, panics or is killed.
//
// Linux delivers Pdeathsig when the thread that forked the child exits, not
// when the process does. The Go runtime ends a thread when a goroutine that
// locked itself to it (runtime.LockOSThread) returns without unlocking; a
// component started from such a goroutine would be killed as soon as that
// goroutine returned. So every component is started from one goroutine owned
// by the Cluster that stays locked to its thread until Stop: that thread
// lives exactly as long as the cluster, whatever goroutine calls Start.
package localcluster
