package export_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/konnect-operator/konnect-operator/pkg/export"
	"github.com/konnect-operator/konnect-operator/pkg/export/exporttest"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// simRateLimitPerMinute is Konnect's budget as it has been seen.
const simRateLimitPerMinute = 3000

// BenchmarkExport1000 exports a control plane of about 1,000 entities of
// every kind from a simulator that limits the organisation to 3,000
// requests a minute, as Konnect does, through the operator's client with
// its defaults (the rate limiter follows Konnect's budget), and reports the
// export's wall time and the Konnect requests it made (the simulator
// counts them). Seeding the control plane is not timed.
func BenchmarkExport1000(b *testing.B) {
	sim := konnectsim.Start(b, konnectsim.Options{Tokens: map[string]string{testToken: "acme"}, RateLimitPerMinute: simRateLimitPerMinute})
	clients := konnect.NewClientFactory(konnect.Options{RootCAs: sim.CAPool})
	api, err := clients.API(sim.URL, testToken)
	if err != nil {
		b.Fatal(err)
	}
	copies := (1000 + exporttest.EntitiesPerCopy - 1) / exporttest.EntitiesPerCopy
	seeded, err := exporttest.Seed(b.Context(), api, "bench", copies)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		sim.ResetCalls()
		begin := time.Now()
		res, err := export.Export(b.Context(), api, export.Options{ControlPlane: "bench", Namespace: "bench", AuthConfiguration: "konnect"})
		if err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(begin)
		var out bytes.Buffer
		if err := export.Write(&out, res.Objects); err != nil {
			b.Fatal(err)
		}
		calls, writes := 0, 0
		for _, r := range sim.Requests() {
			calls++
			if r.Method != http.MethodGet {
				writes++
			}
		}
		b.ReportMetric(float64(seeded.Entities()), "entities")
		b.ReportMetric(elapsed.Seconds(), "export-s")
		b.ReportMetric(float64(calls), "konnect-calls")
		b.ReportMetric(float64(sim.Served().RateLimited), "429s")
		b.ReportMetric(float64(len(res.Objects)), "objects")
		b.ReportMetric(float64(out.Len())/1024, "yaml-KiB")
		if writes > 0 {
			b.Fatalf("the export wrote to Konnect %d times", writes)
		}
	}
}
