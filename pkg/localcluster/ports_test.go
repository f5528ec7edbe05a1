package localcluster

import (
	"net"
	"strconv"
	"testing"
)

func TestFreePortsAreDistinctAndBindable(t *testing.T) {
	ports, err := freePorts(5)
	if err != nil {
		t.Fatal(err)
	}
	if len(ports) != 5 {
		t.Fatalf("got %d ports, want 5", len(ports))
	}
	seen := map[int]bool{}
	for _, port := range ports {
		if seen[port] {
			t.Fatalf("port %d returned twice in %v", port, ports)
		}
		seen[port] = true
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatalf("port %d is not free after freePorts returned: %v", port, err)
		}
		_ = l.Close()
	}
}
