package konnectsim

import (
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// Fault is what goes wrong with the requests of one operation.
type Fault struct {
	// ErrorRate is the probability (0..1) that a request fails with Status
	// (or hangs, when Hang is set). With Times > 0 a rate of 0 means 1.
	ErrorRate float64
	// Status of the injected failure; 0 means 500. A 429 is answered the
	// way Konnect's connection-level limiter answers: before the
	// organisation's budget is counted, with neither Retry-After nor
	// RateLimit headers.
	Status int
	// Latency is added before every matching request is handled.
	Latency time.Duration
	// Hang makes failing requests hang instead of answering: until the
	// client gives up (its timeout), the simulator closes, or HangFor passes
	// (then 504).
	Hang    bool
	HangFor time.Duration
	// AfterEffect applies the operation before failing, so that the client
	// cannot know whether its write happened (the "unknown outcome" case).
	AfterEffect bool
	// Times, when > 0, removes the fault after it has failed that many requests.
	Times int
	// Until, when set, gates every matching request: it waits, before it
	// is handled, until the channel is closed (or the client gives up, or the
	// simulator closes): a test decides when Konnect answers, instead of
	// guessing a latency long enough for what it does meanwhile.
	Until <-chan struct{}
	// Organization, when set, limits the fault to the requests whose
	// token belongs to this organisation (its id): an outage of one
	// organisation while the others are served.
	Organization string
}

// Faults holds the injected faults, keyed by operation: "METHOD /template",
// an operationId such as "create-service", or "*" for every operation. A
// request meets the faults of all three keys in that order, and the first
// that fires decides its fate, so that faults of different kinds can be
// mixed (say 10% 503s everywhere and hangs on creates). Safe for
// concurrent use.
type Faults struct {
	mu       sync.Mutex
	byOp     map[string]*Fault
	force429 int
	retry429 time.Duration
	rng      *rand.Rand
	// failures maps the name of a network or transit gateway to the reason
	// its provisioning fails.
	failures map[string]string
}

func newFaults() *Faults {
	return &Faults{byOp: map[string]*Fault{}, rng: rand.New(rand.NewPCG(1, 2)), failures: map[string]string{}}
}

// Set installs (replacing) the fault for an operation.
func (f *Faults) Set(operation string, fault Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fault.Status == 0 {
		fault.Status = http.StatusInternalServerError
	}
	if fault.Times > 0 && fault.ErrorRate == 0 {
		fault.ErrorRate = 1
	}
	f.byOp[operation] = &fault
}

// Remove deletes the fault of an operation.
func (f *Faults) Remove(operation string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.byOp, operation)
}

// Clear removes every fault and pending forced 429.
func (f *Faults) Clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.byOp = map[string]*Fault{}
	f.force429 = 0
	f.failures = map[string]string{}
}

// FailProvisioning makes the provisioning of every network or transit
// gateway created with this name from now on end in failure, with reason
// as Konnect's explanation: a network ends offline, a transit gateway in
// error.
func (f *Faults) FailProvisioning(name, reason string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures[name] = reason
}

// RemoveProvisioningFailure lets entities of this name provision again.
func (f *Faults) RemoveProvisioningFailure(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.failures, name)
}

// provisioningFailure is why an entity of this name fails to provision,
// or "".
func (f *Faults) provisioningFailure(name string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failures[name]
}

// Force429 makes the next n authenticated requests (any operation, any
// organisation) answer 429 with the given Retry-After.
func (f *Faults) Force429(n int, retryAfter time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.force429, f.retry429 = n, retryAfter
}

// Seed makes ErrorRate decisions reproducible.
func (f *Faults) Seed(seed uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// List returns a copy of the installed faults.
func (f *Faults) List() map[string]Fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]Fault, len(f.byOp))
	for k, v := range f.byOp {
		out[k] = *v
	}
	return out
}

// decision is what happens to one request.
type decision struct {
	latency     time.Duration
	until       []<-chan struct{}
	status      int // 0 = no failure
	hang        bool
	hangFor     time.Duration
	afterEffect bool
}

// pick decides the fate of one request of rt from the organisation orgID
// ("" for an unknown token). Its latency is the longest of the matching
// faults'.
func (f *Faults) pick(rt *route, orgID string) decision {
	f.mu.Lock()
	defer f.mu.Unlock()
	var d decision
	fired := false
	for _, key := range []string{rt.key(), rt.operationID, "*"} {
		fault := f.byOp[key]
		if fault == nil || fault.Organization != "" && fault.Organization != orgID {
			continue
		}
		d.latency = max(d.latency, fault.Latency)
		if fault.Until != nil {
			d.until = append(d.until, fault.Until)
		}
		if fired || fault.ErrorRate <= 0 || f.rng.Float64() >= fault.ErrorRate {
			continue
		}
		fired = true
		d.status, d.hang, d.hangFor, d.afterEffect = fault.Status, fault.Hang, fault.HangFor, fault.AfterEffect
		if fault.Times > 0 {
			fault.Times--
			if fault.Times == 0 {
				delete(f.byOp, key)
			}
		}
	}
	return d
}

// take429 spends one forced 429, if any are pending.
func (f *Faults) take429() (time.Duration, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.force429 <= 0 {
		return 0, false
	}
	f.force429--
	return f.retry429, true
}
