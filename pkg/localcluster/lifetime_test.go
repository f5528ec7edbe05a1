package localcluster_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/konnect-operator/konnect-operator/pkg/localcluster"
)

// helperEnv makes the test binary, started again by a test, run runHelper
// instead of the tests; its value is the cluster folder.
const helperEnv = "LOCALCLUSTER_TEST_HELPER_DIR"

// The main goroutine (running TestMain) keeps the main thread for the whole
// test binary, so that no test goroutine ever runs there: the runtime never
// ends the main thread when a goroutine locked to it returns (it parks it
// instead), which would hide the thread-death behaviour these tests prove.
func init() {
	runtime.LockOSThread()
}

// runHelper starts a cluster from a goroutine that locks itself to its OS
// thread and returns without unlocking, which ends that thread: a cluster
// whose components were forked on it would be killed there and then. It then
// marks the cluster ready and waits to be killed.
func runHelper() int {
	dir := os.Getenv(helperEnv)
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		_, err := localcluster.Start(context.Background(), localcluster.Options{Dir: dir})
		started <- err
	}()
	if err := <-started; err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Waiting on external processes: give the kernel time to deliver a
	// death signal for the ended thread, had the components asked for one
	// tied to it (the test then finds them dead). Nothing to poll: the
	// signal that must not come is the condition.
	time.Sleep(500 * time.Millisecond)
	if err := os.WriteFile(filepath.Join(dir, "ready"), nil, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	select {} // until the test kills this process
}

func TestComponentsOutliveTheStartingThreadAndDieWithTheProcess(t *testing.T) {
	dir := t.TempDir()
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), helperEnv+"="+dir)
	helper.Stdout, helper.Stderr = os.Stderr, os.Stderr
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	helperExited := make(chan error, 1)
	go func() { helperExited <- helper.Wait() }()
	t.Cleanup(func() { _ = helper.Process.Kill() })

	deadline := time.After(2 * time.Minute)
	for ready := false; !ready; {
		select {
		case err := <-helperExited:
			t.Fatalf("helper exited before its cluster was ready: %v", err)
		case <-deadline:
			t.Fatal("helper cluster not ready in time")
		case <-time.After(100 * time.Millisecond):
			_, err := os.Stat(filepath.Join(dir, "ready"))
			ready = err == nil
		}
	}

	pids := componentPIDs(t, dir)
	if len(pids) != 3 {
		t.Fatalf("found pid files for %v, want etcd, kube-apiserver and kube-controller-manager", pids)
	}
	// The thread that started Start has ended; the API server must still answer.
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Discovery().ServerVersion(); err != nil {
		t.Fatalf("API server gone after its starting goroutine ended: %v", err)
	}

	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := <-helperExited; err == nil {
		t.Fatal("the helper exited cleanly; it should have died of SIGKILL")
	}
	var survivors []string
	for name, pid := range pids {
		if !processGone(pid, 10*time.Second) {
			survivors = append(survivors, fmt.Sprintf("%s (pid %d)", name, pid))
		}
	}
	if len(survivors) > 0 {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Fatalf("%v still ran after the process that started them was killed", survivors)
	}
}

func componentPIDs(t *testing.T, dir string) map[string]int {
	t.Helper()
	pids := map[string]int{}
	for _, name := range []string{"etcd", "kube-apiserver", "kube-controller-manager"} {
		data, err := os.ReadFile(filepath.Join(dir, name+".pid"))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatalf("pid file of %s: %v", name, err)
		}
		pids[name] = pid
	}
	return pids
}

// processGone waits up to timeout for pid to stop running. A zombie counts
// as gone: it has exited and only waits for its new parent to reap it.
func processGone(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		// The state follows the parenthesised command name.
		if fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(fields) > 0 && fields[0] == "Z" {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond) // polling an external process's state in /proc
	}
}
