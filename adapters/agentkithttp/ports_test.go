package agentkithttp

import (
	"context"
	"sync"
	"testing"

	"github.com/sifu-dev/sifu/suite/agentkit"
)

// TestFreeAddrNeverHandsAPortOutTwice: checks that start gateways at once
// each get a port of their own, even when the kernel offers again a port
// that a check holds but is not listening on yet; a port let go can be
// handed out again (a run of many checks would otherwise run out).
func TestFreeAddrNeverHandsAPortOutTwice(t *testing.T) {
	seen := map[string]bool{}
	var releases []func()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				addr, release, err := FreeAddr()
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[addr] {
					t.Errorf("%s handed out twice", addr)
				}
				seen[addr] = true
				releases = append(releases, release)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, release := range releases {
		release()
	}
	inUse.Lock()
	defer inUse.Unlock()
	if len(inUse.ports) != 0 {
		t.Errorf("%d ports still held after every release", len(inUse.ports))
	}
}

// takenOnce is a launcher whose first gateway finds its port taken.
type takenOnce struct {
	addrs []string
}

func (l *takenOnce) Hello() agentkit.Hello { return agentkit.Hello{} }

func (l *takenOnce) Launch(_ context.Context, _, addr string) (Instance, error) {
	l.addrs = append(l.addrs, addr)
	if len(l.addrs) == 1 {
		return nil, &StartFailure{ExitCode: 1, Stderr: "listen tcp " + addr + ": bind: address already in use"}
	}
	return stopped{}, nil
}

type stopped struct{}

func (stopped) URL() string { return "" }
func (stopped) Stop() error { return nil }

// TestAGatewayWhosePortWasTakenStartsOnAnother: a port taken by another
// process between FreeAddr and the gateway's bind is no verdict on the
// gateway; sifu starts it again on another port.
func TestAGatewayWhosePortWasTakenStartsOnAnother(t *testing.T) {
	stub, err := StartStub("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stub.Close()
	l := &takenOnce{}
	m := &Managed{Launcher: l, Server: stub}
	defer m.Close()
	res, err := m.TryStart(context.Background(), map[string]string{"app.yaml": "serving:\n  addr: {{.Addr}}\n"})
	if err != nil || !res.Started {
		t.Fatalf("%+v %v, want the gateway started on a second port", res, err)
	}
	if len(l.addrs) != 2 || l.addrs[0] == l.addrs[1] {
		t.Errorf("launched at %v, want two different ports", l.addrs)
	}
}

// TestAPortAnotherRunHoldsIsNotHandedOut: a port whose lock file another
// sifu process holds is passed over; once let go, it can be reserved.
func TestAPortAnotherRunHoldsIsNotHandedOut(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	other, ok := reservePort(40999)
	if !ok || other == nil {
		t.Fatal("a free port's lock file could not be taken")
	}
	if _, ok := reservePort(40999); ok {
		t.Error("a port another holder reserved was reserved again")
	}
	if err := other.Unlock(); err != nil {
		t.Fatal(err)
	}
	again, ok := reservePort(40999)
	if !ok {
		t.Error("a port let go cannot be reserved")
	}
	_ = again.Unlock()
}
